// The shapes the replay viewer's modules share, for tsc (tsconfig.json); no browser reads this file.  They are
// declared here rather than imported in JSDoc: the viewer's modules go inside its page, which names nothing to
// import (tests/replays/test_viewer.py).

/** A replay document, as replays/build.py writes it (the members the viewer reads). */
interface ReplayDocument {
  steps: Record<string, any>[];
  [member: string]: any;
}

/** A seat's rating in a rated game's replay: before the game, and its change once the ladder has the game. */
interface SeatRating {
  seat: number;
  rating: number;
  provisional?: boolean;
  change?: number | null;
}

/** What the viewer shows of a document, read once (viewer/replay.js: readReplay). */
interface Replay {
  doc: ReplayDocument;
  steps: Record<string, any>[];
  total: number;
  options: Record<string, any>;
  seatInfo: Record<string, any>[];
  ratings: { applied?: boolean; ladder?: string; seats: SeatRating[] } | null;
  ratingOf: Map<number, SeatRating>;
  analysis: { decisions: Record<string, any>[]; players?: Record<string, any>[]; rounds?: unknown[] } | null;
  /** the labelled decision at each step */
  verdictAt: Map<number, Record<string, any>>;
  seatCount: number;
}

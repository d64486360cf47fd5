"""The web client: /play and the replay viewer, in the browser's own languages (HTML, CSS, JavaScript), no build step.

``core/``: what both pages share, as ES modules (the words and the language switch, the rules and cards in words,
numbers, the page's elements, the API client); ``play/``: /play's page, style, word table and a module per screen;
``viewer/``: the replay viewer's style, word table and modules (its page is ``replays/viewer.html``).  Each module's
types are JSDoc, checked by ``tsc`` (``tsconfig.json``; tests/webclient).  Here in Python: how the files are handed
out (:mod:`service.webclient.assets`) and the word tables (:mod:`service.webclient.words`).  Pure but for reading
this package's own files.
"""

"""stepscope's Python shim: step and data-loading markers for unmodified PyTorch programs.

Loaded by ../sitecustomize.py under `stepscope record`; importing this package does nothing by
itself (it must stay free of imports: it is loaded into every Python process started under the
recorder). See docs/markers.md.
"""

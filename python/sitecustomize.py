# stepscope's Python shim entry point. `stepscope record` puts this directory first on PYTHONPATH,
# so Python imports this file as `sitecustomize` at start-up. It runs the sitecustomize that would
# have run without us, then arranges for step and data-loading markers once torch is imported
# (see stepscope/_site.py and docs/markers.md). It must never break the interpreter's start.
try:
    import stepscope._site as _stepscope_site

    _stepscope_site.start(__file__)
except Exception as _stepscope_exc:  # noqa: BLE001 - anything, but let SystemExit through
    import sys as _stepscope_sys

    _stepscope_sys.stderr.write("stepscope: python shim disabled: %s\n" % (_stepscope_exc,))

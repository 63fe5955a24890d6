"""The site's checks and its page-weight record, one module each, run from the repository root
as ``python -m docs.checks.NAME`` (``links``, ``editions``, ``browser`` ...) and imported by the
tests as ``docs.checks.NAME``. They sit beside the pages, not in the package: the wheel the live
calculators load stays as small as it is."""

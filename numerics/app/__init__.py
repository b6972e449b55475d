"""The application: ``maskverify`` (``cli``), the check runner (``checkrun``), the report
(``report``, ``report_html``) and the LaTeX export (``latex_cmd``).  It knows the packs only
through ``numerics.core.registry``; the errata it shows are read by ``numerics.core.errata``."""

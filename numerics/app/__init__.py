"""The application: ``maskverify`` (``cli``), the check runner (``checkrun``), the report
(``report``, ``report_html``), the LaTeX export (``latex_cmd``) and the errata renderer
(``errata``).  It knows the packs only through ``numerics.core.registry``."""

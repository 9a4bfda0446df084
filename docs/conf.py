"""Sphinx configuration of rankwise's documentation site.

Build: python -m sphinx -W -b html docs docs/_build/html (warnings are errors). rankwise must be
importable (installed, or the in-place build with PYTHONPATH=src): the API reference and the
version come from the package itself. Nothing is fetched at build time nor when a page is read:
no intersphinx, no web fonts, and MathJax is served from the site (sphinx-mathjax-offline).
"""

import rankwise

project = "rankwise"
author = "the rankwise developers"
copyright = "the rankwise developers"
version = release = rankwise.__version__

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "matplotlib.sphinxext.plot_directive",
    # A copy of MathJax in _static/mathjax, so formulas render with no network.
    "sphinx-mathjax-offline",
]

# autosummary writes its pages (api/generated) as reStructuredText.
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "api/generated/README*", "**/.ipynb_checkpoints"]
templates_path = ["_templates"]
html_static_path = []

# MyST: $...$ and $$...$$ math, \begin{align} blocks, ::: fences, definition lists; README-style
# #anchors to headings down to level 3.
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# The API reference: autosummary writes one page per name into api/generated (not in git).
autosummary_generate = True
autodoc_typehints = "none"
autodoc_member_order = "groupwise"
# rankwise.spark and rankwise.dask import their engine at import time; the site builds without them.
autodoc_mock_imports = ["pyspark", "dask", "distributed"]
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# The plot directive (docs/plotting.md): figures made at build time, shown with their source.
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]
plot_rcparams = {"figure.figsize": (6.4, 4.0)}

html_theme = "pydata_sphinx_theme"
html_title = f"rankwise {release}"
html_theme_options = {
    "github_url": "https://github.com/rankwise/rankwise",
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
}
# Light or dark as the reader's system says; without a default the theme's script logs an error.
html_context = {"default_mode": "auto"}
html_show_sourcelink = False
html_last_updated_fmt = None

"""Figures for the book's pages (matplotlib). Not imported by the calculators.

Every figure is made and drawn through :mod:`infrabook.plots.style`: SVG with its labels as
text, Chinese words from :mod:`infrabook.labels`, a transparent background that the site's
stylesheet turns for dark mode; axes are labelled and the caption lives on the page.
"""

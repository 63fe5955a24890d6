"""Figures for the book's pages (matplotlib). Not imported by the calculators.

Every figure is drawn on an opaque white background with dark ink, so it reads the same in
the site's light and dark themes; axes are labelled and the caption lives on the page.
"""

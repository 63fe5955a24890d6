/* Replaces the theme's Font Awesome script (1.6 MB), which redraws every icon as SVG.
   The theme's stylesheet already draws the same icons from Font Awesome's web font, so the
   script adds weight and nothing a reader sees. See docs/_ext/infrabook_a11y.py. */

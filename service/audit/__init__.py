"""Audit: table exports, their offline verification, replay and duplicate-deal reports.

Everything here but the export's database reads is pure, so ``cardroom verify`` runs on
a laptop with nothing but the export file and this package.
"""

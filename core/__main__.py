"""``python -m rollbridge`` runs the command line."""

from rollbridge.cli import main

raise SystemExit(main())

from infrabook.cli import main

raise SystemExit(main())

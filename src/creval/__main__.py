from creval.cli import main

main()

from hotc.cli.app import main

main()

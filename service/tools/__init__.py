"""Tools around the service: the command line, the reference bot, the bench."""

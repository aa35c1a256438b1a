"""What every run leaves: the run record, its status words, the history of runs."""

"""Paper sources → clean records → the SQLite index, and the read connections everyone else uses."""

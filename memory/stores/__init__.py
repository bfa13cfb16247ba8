"""Where memory lives: the store protocols and their embedded SQLite implementations."""

"""Language knowledge in one place: numbers, times and dates, cue words, spoken phrases (en, zh)."""

"""errors.py -- the error raised for bad user input anywhere in tilepdb."""


class InputError(ValueError):
    """Invalid input from the user (a puzzle, an option, a file); the message is one line."""

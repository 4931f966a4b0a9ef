"""errors.py -- the error raised for bad user input anywhere in tilepdb."""


class InputError(ValueError):
    """Invalid input from the user (a puzzle, an option, a file); the message is one line."""


class OutputError(InputError):
    """An output path that cannot take the output: it exists and is not a regular file (a
    folder, a FIFO, a device), or it names a stream where a file is needed."""

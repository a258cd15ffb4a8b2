def parse_config_file(path):
    """Reads key=value lines from path."""
    with open(path) as f:
        return dict(line.split("=", 1) for line in f if "=" in line)

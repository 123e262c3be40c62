"""What the commands print: JSON documents (`*_document`, `*_section`) and rich tables (`render*`)."""

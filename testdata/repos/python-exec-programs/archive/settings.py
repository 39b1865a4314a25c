import os

# ImageMagick's convert makes thumbnails; Ghostscript renders PDFs.
ARCHIVE_CONVERT_BINARY = os.getenv("ARCHIVE_CONVERT_BINARY", "convert")
ARCHIVE_GS_BINARY = os.getenv("ARCHIVE_GS_BINARY", "gs")
# A path default, not a program: never reported.
ARCHIVE_MEDIA_PATH = os.getenv("ARCHIVE_MEDIA_PATH", "/srv/archive/media")
ARCHIVE_TIMEZONE = os.getenv("ARCHIVE_TIMEZONE", "convert")

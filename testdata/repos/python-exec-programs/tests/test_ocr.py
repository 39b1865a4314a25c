import subprocess


def test_tesseract_present():
    subprocess.run(["jbig2", "--version"], check=True)

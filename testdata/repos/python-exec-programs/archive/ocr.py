import shutil
import subprocess


def ocr(image: str, out: str) -> None:
    subprocess.run(
        ["tesseract", image, out, "-l", "eng"],
        check=True,
    )


def has_unpaper() -> bool:
    return shutil.which("unpaper") is not None


def page_count(pdf: str) -> int:
    out = subprocess.check_output(["/usr/bin/pdfinfo", pdf], text=True)
    # subprocess.run(["qpdf", "--check", pdf])  -- disabled, too slow
    return int(out.split("Pages:")[1].split()[0])


def optimise(png: str) -> None:
    subprocess.run(f"pngquant --force {png}", shell=True, check=True)

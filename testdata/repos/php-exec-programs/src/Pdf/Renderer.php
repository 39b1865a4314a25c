<?php

namespace App\Pdf;

use Symfony\Component\Process\Process;

final class Renderer
{
    public function __construct(private \PDO $pdo) {}

    /*
     exec('ffmpeg -i in.mp4 out.webm') was the old way; kept here as a note.
     */
    public function flatten(string $in, string $out): void
    {
        exec('gs -q -dNOPAUSE -dBATCH -sDEVICE=pdfwrite -sOutputFile=' . escapeshellarg($out) . ' ' . escapeshellarg($in));
        $this->pdo->exec("DELETE FROM renders WHERE path = 'x'");
        $process = new Process(['pdftoppm', '-png', $out, $out]);
        $process->mustRun();
    }
}

use std::process::Command;

fn main() {
    let out = Command::new("git").args(["rev-parse", "HEAD"]).output().unwrap();
    println!("cargo:rustc-env=COMMIT={}", String::from_utf8_lossy(&out.stdout));
}

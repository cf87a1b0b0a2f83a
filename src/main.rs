fn main() -> std::process::ExitCode {
    cctool::run(std::env::args_os()).into()
}

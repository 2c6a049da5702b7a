// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

/// The allocator the command line uses too: a ranking builds and frees a
/// few hundred thousand small values, which mimalloc does in about half the
/// time of the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    breakpoint_app::run();
}

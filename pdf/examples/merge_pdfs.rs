//! Measures `pdf::merge::merge` on 100 copies of a label PDF: time and the
//! peak of heap memory it allocates. Run by `tests/bench/jobs.mjs`:
//! `cargo run --release -p pdf --example merge_pdfs -- LABEL.pdf [COUNT]`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

// The module itself, not the `pdf` library: the crate is a cdylib only, so
// that the four Workers build their dependencies once, alike.
#[path = "../src/merge.rs"]
mod merge;

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = args.next().ok_or("usage: merge_pdfs LABEL.pdf [COUNT]")?;
    let count: usize = args.next().map_or(Ok(100), |n| n.parse())?;
    let label = std::fs::read(file)?;
    let labels = vec![label; count];
    let mut runs = Vec::new();
    let mut size = 0;
    let mut peak = 0;
    for _ in 0..5 {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let started = Instant::now();
        let merged = merge::merge(&labels).map_err(|e| e.reason)?;
        runs.push(started.elapsed().as_secs_f64() * 1000.0);
        size = merged.len();
        peak = PEAK.load(Ordering::Relaxed) - before;
    }
    runs.sort_by(f64::total_cmp);
    println!(
        "{{\"labels\":{count},\"input_bytes\":{},\"median_ms\":{:.2},\"output_bytes\":{size},\"peak_heap_bytes\":{peak}}}",
        labels[0].len() * count,
        runs[runs.len() / 2]
    );
    Ok(())
}

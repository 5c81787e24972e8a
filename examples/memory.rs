//! GPU memory of one pass per curve and size: the bytes per point of every buffer a pass uses
//! (buffers whose lives do not overlap share memory) at 2^16, 2^20 and 2^24 points (one pass
//! of that size, as a GPU whose limits allow it runs), against the bytes of the points and
//! scalars themselves, on the default adapter's limits and chosen kernels.
//!
//! `cargo run --release --example memory [-- --curve bn254] [--narrow]`: `--narrow` sizes the
//! 13-bit form that browsers run.

mod cli;

use webgpu_msm::{ContextOptions, CurveId, MsmContext, MulForm};

fn main() {
    let args = cli::Args::from_env();
    let curves: Vec<CurveId> = match args.value("--curve") {
        Some(_) => vec![args.curve("bn254")],
        None => CurveId::ALL.to_vec(),
    };
    let options =
        ContextOptions { mul_form: args.flag("--narrow").then_some(MulForm::ROLLED), ..ContextOptions::default() };
    let ctx = pollster::block_on(MsmContext::new())
        .and_then(|ctx| ctx.with_options(options))
        .unwrap_or_else(|e| cli::exit(&format!("{e}")));
    println!("adapter: {}", ctx.adapter_info().name);
    println!("curve | kernels | 2^16 | 2^20 | 2^24 | largest pass | ÷ input bytes at 2^16 / 2^20 / 2^24");
    for curve in curves {
        // The curve's chosen kernels set the sizes: compile and measure them first.
        let kernels = pollster::block_on(ctx.warm_up(curve)).unwrap_or_else(|e| cli::exit(&format!("{e}"))).kernels;
        let per_point = |n: usize| ctx.gpu_memory_bytes(curve, n) as f64 / n as f64;
        let largest = ctx.max_pass_points(curve);
        let input = curve.spec().raw_point_bytes() as f64 + 32.0;
        let sizes = [1 << 16, 1 << 20, 1 << 24].map(per_point);
        println!(
            "{curve} | {:?}, {:?} | {:.0} B | {:.0} B | {:.0} B | {:.0} B ({largest} points) | {:.2} / {:.2} / {:.2}",
            kernels.form,
            kernels.accumulation,
            sizes[0],
            sizes[1],
            sizes[2],
            per_point(largest),
            sizes[0] / input,
            sizes[1] / input,
            sizes[2] / input,
        );
    }
}

using System.Diagnostics;

namespace PerfLab.Common;

/// <summary>
/// A fixed single-thread CPU task timed repeatedly, on the wall clock and on the thread's CPU clock: its CPU time
/// changes when the core itself runs slower (a shared host's frequency, a sibling hyperthread), which slows CPU per
/// request too; its wall time beyond its CPU time is the time a neighbour held the core, which slows throughput only.
/// </summary>
/// <param name="WallMs">Each repetition's wall time.</param>
/// <param name="CpuMs">Each repetition's CPU time (the thread's own clock).</param>
public sealed record CpuCalibration(IReadOnlyList<double> WallMs, IReadOnlyList<double> CpuMs)
{
    /// <summary>Repetitions of under 10 ms each on this kind of machine: under 0.3 s in all (2026-12-01, a smoke run).</summary>
    public const int DefaultRepetitions = 30;

    /// <summary>The core's speed, repetition to repetition (CV of the CPU time), in percent.</summary>
    public double SpeedCvPercent => CpuMs.Count < 2 ? double.NaN : Descriptive.StdDev(CpuMs) / CpuMs.Average() * 100;

    /// <summary>CPU time over wall time, in percent: 100 when the thread always had a core.</summary>
    public double CoreSharePercent => WallMs.Sum() > 0 ? Math.Min(100, CpuMs.Sum() / WallMs.Sum() * 100) : double.NaN;

    /// <summary>Runs the task on a thread of its own; a fraction of a second.</summary>
    public static Task<CpuCalibration> RunAsync(int repetitions = DefaultRepetitions, long iterations = 4_000_000,
        CancellationToken ct = default)
    {
        var done = new TaskCompletionSource<CpuCalibration>(TaskCreationOptions.RunContinuationsAsynchronously);
        var thread = new Thread(() =>
        {
            var wall = new List<double>();
            var cpu = new List<double>();
            for (var i = 0; i < repetitions && !ct.IsCancellationRequested; i++)
            {
                var started = Stopwatch.GetTimestamp();
                var cpuStarted = CpuClock.CurrentThreadNanoseconds();
                Task(iterations);
                cpu.Add((CpuClock.CurrentThreadNanoseconds() - cpuStarted) / 1e6);
                wall.Add(Stopwatch.GetElapsedTime(started).TotalMilliseconds);
            }
            done.SetResult(new CpuCalibration(wall, cpu));
        })
        { IsBackground = true, Name = "perflab calibration" };
        thread.Start();
        return done.Task;
    }

    // Integer mixing the JIT cannot fold away (the result is kept), touching no memory: the core's speed alone.
    private static ulong Task(long iterations)
    {
        var x = 0x9E3779B97F4A7C15UL;
        for (var i = 0L; i < iterations; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        GC.KeepAlive(x);
        return x;
    }
}

using System.Runtime.InteropServices;

namespace PerfLab.Sut.Hosting;

/// <summary>
/// Sut:ExtraWorkMicroseconds: every request first spins the CPU for a fixed time. A slowdown whose size is known, so
/// the lab's verdicts can be checked against it (a 10 % slowdown must be called "worse"), and a cost whose size is
/// known, so the lab's CPU per request can be checked against it.
/// </summary>
public static class ExtraWork
{
    private const int ClockThreadCpuTime = 3;

    public static IApplicationBuilder UseExtraWork(this IApplicationBuilder app, EffectiveVariants variants)
    {
        if (variants.ExtraWorkMicroseconds <= 0 && !variants.PerRequest)
        {
            return app;
        }
        return app.Use((context, next) =>
        {
            // With per-request variants each request carries its own amount (RequestVariants); else the process's.
            var microseconds = variants.PerRequest
                ? context.RequestServices.GetRequiredService<RequestVariant>().ExtraWorkMicroseconds
                : variants.ExtraWorkMicroseconds;
            Spin(microseconds * 1000L);
            return next(context);
        });
    }

    // Spinning on this thread's CPU clock, not the wall clock: the cost is CPU time the kernel charges, as a slower
    // serializer's would be, and stays the same when a neighbour takes the core for a while.
    private static void Spin(long nanoseconds)
    {
        if (nanoseconds <= 0)
        {
            return;
        }
        var until = ThreadCpuNanoseconds() + nanoseconds;
        while (ThreadCpuNanoseconds() < until)
        {
            Thread.SpinWait(20);
        }
    }

    private static long ThreadCpuNanoseconds() =>
        clock_gettime(ClockThreadCpuTime, out var ts) == 0 ? ts.Seconds * 1_000_000_000 + ts.Nanoseconds : long.MaxValue;

    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

#pragma warning disable SYSLIB1054 // DllImport keeps the project free of unsafe code; this marshals trivially.
    [DllImport("libc", SetLastError = true)]
    private static extern int clock_gettime(int clockId, out Timespec time);
#pragma warning restore SYSLIB1054
}

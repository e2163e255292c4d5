using System.Diagnostics;

namespace PerfLab.Sut.Hosting;

/// <summary>
/// Sut:ExtraWorkMicroseconds: every request first spins the CPU for a fixed time. A slowdown whose size is known, so
/// the lab's verdicts can be checked against it (a 10 % slowdown must be called "worse").
/// </summary>
public static class ExtraWork
{
    public static IApplicationBuilder UseExtraWork(this IApplicationBuilder app, EffectiveVariants variants)
    {
        if (variants.ExtraWorkMicroseconds <= 0)
        {
            return app;
        }
        var ticks = variants.ExtraWorkMicroseconds * Stopwatch.Frequency / 1_000_000;
        return app.Use((context, next) =>
        {
            // Spinning, not sleeping: the cost must be CPU time, as a slower serializer or query would be.
            var until = Stopwatch.GetTimestamp() + ticks;
            while (Stopwatch.GetTimestamp() < until)
            {
                Thread.SpinWait(20);
            }
            return next(context);
        });
    }
}

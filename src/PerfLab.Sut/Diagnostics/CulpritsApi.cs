using System.Diagnostics;
using Microsoft.AspNetCore.Http.HttpResults;

namespace PerfLab.Sut.Diagnostics;

/// <summary>
/// Endpoints with a known culprit, so the trace analysis can be tested on a real process: one lock held around slow
/// work (contention whose call site is <see cref="HoldLock"/>), and one that allocates many short-lived arrays (GC).
/// </summary>
public static class CulpritsApi
{
    private const int MaxMilliseconds = 1_000;
    private const int MaxArrays = 1_000_000;

    // One lock for the whole process on purpose: concurrent requests must queue on it.
    private static readonly Lock s_gate = new();

    public static IEndpointRouteBuilder MapCulprits(this IEndpointRouteBuilder app)
    {
        app.MapGet("/diagnostics/lock", Results<Ok<long>, BadRequest<string>> (int ms = 2) =>
            ms is < 0 or > MaxMilliseconds
                ? TypedResults.BadRequest($"ms must be between 0 and {MaxMilliseconds}")
                : TypedResults.Ok(HoldLock(ms)));
        app.MapGet("/diagnostics/gc-heavy", Results<Ok<long>, BadRequest<string>> (int arrays = 20_000) =>
            arrays is < 0 or > MaxArrays
                ? TypedResults.BadRequest($"arrays must be between 0 and {MaxArrays}")
                : TypedResults.Ok(Allocate(arrays)));
        return app;
    }

    // Spins rather than sleeps so the holder burns CPU and the waiters show as contention, as a real hot lock does.
    private static long HoldLock(int ms)
    {
        lock (s_gate)
        {
            var spin = Stopwatch.StartNew();
            long turns = 0;
            while (spin.ElapsedMilliseconds < ms)
            {
                turns++;
            }
            return turns;
        }
    }

    private static long Allocate(int arrays)
    {
        long sum = 0;
        for (var i = 0; i < arrays; i++)
        {
            var buffer = new byte[1_024 + (i % 64)];
            buffer[i % buffer.Length] = (byte)i;
            sum += buffer[i % buffer.Length] + buffer.Length;
        }
        return sum;
    }
}

using System.Diagnostics;
using Microsoft.AspNetCore.Http.HttpResults;

namespace PerfLab.Sut.Diagnostics;

/// <summary>
/// Endpoints with a known culprit, so the trace analysis can be tested on a real process: one lock held around slow
/// work (contention whose call site is <see cref="HoldLock"/>), one that allocates many short-lived arrays (GC), and
/// one that writes log lines through whatever logging variant runs (the locked-console lock without a database).
/// </summary>
public static partial class CulpritsApi
{
    private const int MaxLines = 1_000;

    private const int MaxMilliseconds = 1_000;
    private const int MaxArrays = 1_000_000;

    // One lock for the whole process on purpose: concurrent requests must queue on it.
#if NET9_0_OR_GREATER
    private static readonly Lock s_gate = new();
#else
    private static readonly object s_gate = new();   // System.Threading.Lock is .NET 9+
#endif

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
        app.MapGet("/diagnostics/log", Results<Ok<int>, BadRequest<string>> (ILoggerFactory loggers, int lines = 10) =>
            lines is < 0 or > MaxLines
                ? TypedResults.BadRequest($"lines must be between 0 and {MaxLines}")
                : TypedResults.Ok(WriteLines(loggers.CreateLogger("PerfLab.Sut.Diagnostics.Culprits"), lines)));
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

    private static int WriteLines(ILogger logger, int lines)
    {
        for (var i = 1; i <= lines; i++)
        {
            LogLine(logger, i, lines);
        }
        return lines;
    }

    [LoggerMessage(EventId = 9001, Level = LogLevel.Information, Message = "Culprit log line {Line} of {Lines}")]
    private static partial void LogLine(ILogger logger, int line, int lines);
}

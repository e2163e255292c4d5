using System.Collections.Concurrent;
using System.Diagnostics;
using Microsoft.AspNetCore.Http.HttpResults;
using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Delays;

/// <summary>
/// An endpoint of known capacity, so the capacity search can be checked against a number known in advance:
/// <c>GET /diagnostics/capacity?slots=K&amp;ms=S</c> serves at most K requests at a time, each holding its slot for
/// S ms, so it completes at most K·1000/S requests per second. Requests beyond that wait for a slot in arrival order,
/// so above the capacity the queue (and the latency) grows without bound, as a saturated server's does.
/// </summary>
public static class CapacityApi
{
    private const int MaxSlots = 1_000;
    private const int MaxMs = 10_000;

    // One gate per slot count for the whole process: every request asking for K slots queues on the same K.
    private static readonly ConcurrentDictionary<int, SemaphoreSlim> s_gates = new();

    public static IEndpointRouteBuilder MapCapacity(this IEndpointRouteBuilder app)
    {
        app.MapGet("/diagnostics/capacity", async Task<Results<Ok<CapacityResult>, ValidationProblem>> (HttpContext context) =>
        {
            if (!QueryParameters.TryGetInt(context, "slots", 1, MaxSlots, 4, out var slots, out var problem)
                || !QueryParameters.TryGetInt(context, "ms", 1, MaxMs, 20, out var ms, out problem))
            {
                return (ValidationProblem)problem;
            }
            var gate = s_gates.GetOrAdd(slots, k => new SemaphoreSlim(k, k));
            var queued = Stopwatch.GetTimestamp();
            // Awaited, never blocking a thread: the limit is the slots, not the thread pool. An aborted request
            // leaves the queue, so a client's timeout does not hold a slot it will never use.
            await gate.WaitAsync(context.RequestAborted);
            var waited = Stopwatch.GetElapsedTime(queued);
            try
            {
                await Task.Delay(ms, context.RequestAborted);
            }
            finally
            {
                gate.Release();
            }
            return TypedResults.Ok(new CapacityResult(slots, ms, Math.Round(waited.TotalMilliseconds, 3)));
        });
        return app;
    }
}

/// <param name="Slots">Requests served at once.</param>
/// <param name="Ms">How long each holds its slot.</param>
/// <param name="WaitedMs">How long this request queued for a slot.</param>
public sealed record CapacityResult(int Slots, int Ms, double WaitedMs);

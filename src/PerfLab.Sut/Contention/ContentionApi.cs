using System.Diagnostics;
using Microsoft.AspNetCore.Http.HttpResults;
using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Contention;

/// <summary>
/// An endpoint whose scalability is set by the request, so a fit of the Universal Scalability Law to a users sweep can
/// be checked against the truth: <c>GET /diagnostics/contention?ms=T&amp;sigma=σ&amp;kappa=κ</c>. Alone, a request
/// takes T ms: (1−σ)·T awaited (parallel, no thread held), then σ·T holding one process-wide lock (spinning to a
/// deadline, so a preempted thread still releases on time). With n requests in flight it takes
/// T·(1 + σ(n−1) + κn(n−1)): it queues behind the serial share of each of the other n−1, and pays κ·T for every pair
/// in flight (the cost of keeping n copies of shared state coherent). A closed sweep of N users then serves
/// X(N) = N / (T·(1 + σ(N−1) + κN(N−1))), the law with λ = 1000/T RPS.
/// </summary>
/// <remarks>
/// Why the wait is made up to its bound rather than left to the lock alone: the law's σ is Gunther's synchronous
/// queueing (every request finds the others' serial shares ahead of it). A plain lock with staggered arrivals has a sharp
/// knee instead (X = N/T until the lock is busy, then 1000/(σT)), which the law fits badly: σ 20-80 % off and a κ that
/// is not there. So a request whose lock queue was shorter than the others in flight waits out the difference
/// (awaited, then spun for the last timer tick, since a timer may fire a tick early); the lock still serialises the
/// serial shares, so the ceiling 1000/(σT) is real.
/// </remarks>
public static class ContentionApi
{
    private const int MaxMs = 10_000;
    private static readonly SemaphoreSlim s_lock = new(1, 1);   // async waiters are served in arrival order
    private static int s_inFlight;

    public static IEndpointRouteBuilder MapContention(this IEndpointRouteBuilder app)
    {
        app.MapGet("/diagnostics/contention", async Task<Results<Ok<ContentionResult>, ValidationProblem>> (HttpContext context) =>
        {
            if (!QueryParameters.TryGetInt(context, "ms", 1, MaxMs, 20, out var ms, out var problem)
                || !QueryParameters.TryGetDouble(context, "sigma", 0, 1, 0.1, out var sigma, out problem)
                || !QueryParameters.TryGetDouble(context, "kappa", 0, 1, 0, out var kappa, out problem))
            {
                return (ValidationProblem)problem;
            }
            var users = Interlocked.Increment(ref s_inFlight);
            try
            {
                return TypedResults.Ok(await ServeAsync(ms, sigma, kappa, users, context.RequestAborted));
            }
            finally
            {
                Interlocked.Decrement(ref s_inFlight);
            }
        });
        return app;
    }

    private static async Task<ContentionResult> ServeAsync(int ms, double sigma, double kappa, int users, CancellationToken ct)
    {
        var start = Stopwatch.GetTimestamp();
        await Task.Delay(TimeSpan.FromMilliseconds((1 - sigma) * ms), ct);
        // A user between its answer and its next request is not counted at the start; by now it is back.
        var n = Math.Max(users, Volatile.Read(ref s_inFlight));
        var queued = Stopwatch.GetTimestamp();
        await s_lock.WaitAsync(ct);
        var waited = Stopwatch.GetElapsedTime(queued);
        try
        {
            SpinUntil(Stopwatch.GetTimestamp() + Ticks(sigma * ms));
        }
        finally
        {
            s_lock.Release();
        }
        var total = ms * (1 + (sigma * (n - 1)) + (kappa * n * (n - 1)));
        var deadline = start + Ticks(total);
        var left = Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), deadline);
        if (left > TimeSpan.Zero)
        {
            await Task.Delay(left, ct);
            SpinUntil(deadline);
        }
        return new ContentionResult(ms, sigma, kappa, n, Math.Round(waited.TotalMilliseconds, 3),
            Math.Round(Stopwatch.GetElapsedTime(start).TotalMilliseconds, 3));
    }

    private static long Ticks(double ms) => (long)(ms * Stopwatch.Frequency / 1000);

    private static void SpinUntil(long deadline)
    {
        while (Stopwatch.GetTimestamp() < deadline)
        {
            Thread.SpinWait(20);
        }
    }
}

/// <param name="Ms">T: one request's time alone.</param>
/// <param name="Sigma">The serial share set (σ).</param>
/// <param name="Kappa">The coherency set (κ).</param>
/// <param name="InFlight">n: the requests in flight this one counted (itself included).</param>
/// <param name="WaitedMs">How long it queued for the lock.</param>
/// <param name="TookMs">Its time in the endpoint: T·(1 + σ(n−1) + κn(n−1)), or more when the lock queue was longer.</param>
public sealed record ContentionResult(int Ms, double Sigma, double Kappa, int InFlight, double WaitedMs, double TookMs);

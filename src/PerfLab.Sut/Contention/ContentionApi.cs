using System.Diagnostics;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http.HttpResults;
using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Contention;

/// <summary>
/// An endpoint whose scalability is set by the request, so a fit of the Universal Scalability Law to a users sweep can
/// be checked against the truth: <c>GET /diagnostics/contention?ms=T&amp;sigma=σ&amp;kappa=κ</c>. Alone, a user's
/// request takes T ms: (1−σ)·T in parallel (awaited, no thread held), then σ·T holding one process-wide lock. With n
/// requests in flight it takes T·(1 + σ(n−1) + κn(n−1)): it queues behind the serial share of each of the other n−1,
/// and pays κ·T for every pair in flight (the cost of keeping n copies of shared state coherent). A closed sweep of N
/// users then serves X(N) = N / (T·(1 + σ(N−1) + κN(N−1))): the law with λ = 1000/T RPS and the σ and κ asked for.
/// </summary>
/// <remarks>
/// Three choices keep that true on a busy machine. (1) The wait is made up to its bound: the law's σ is Gunther's
/// synchronous queueing (each request finds the others' serial shares ahead of it), while a plain lock with staggered
/// arrivals has a sharp knee (X = N/T until the lock is busy, then 1000/(σT)) that the law fits badly: σ 20-80 % off and
/// a κ that is not there. A request whose lock queue was shorter waits out the difference; the lock still serialises the
/// serial shares, so the ceiling 1000/(σT) is real. (2) A user's cycle is timed from its previous answer on the same
/// connection: the client's own time between answer and next request (seen at 10-40 ms with the machine's load near 30
/// times its cores) counts towards the parallel share instead of adding to every cycle, which would shrink the measured
/// σ by T/(T + that time). (3) Every wait is awaited and only its last timer tick (a timer may fire a tick early) spun:
/// a woken thread gets a core sooner on a loaded machine than one that has spun through its share.
/// </remarks>
public static class ContentionApi
{
    private const int MaxMs = 10_000;
    private static readonly object s_user = new();   // the connection item's key: the user on that connection
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
            var items = context.Features.Get<IConnectionItemsFeature>()?.Items;
            var user = items?.TryGetValue(s_user, out var known) == true ? (User)known! : new User();
            items?[s_user] = user;
            var users = user.Arrive();
            try
            {
                var (result, ended) = await ServeAsync(new Work(ms, sigma, kappa), users, user.LastEnd, context.RequestAborted);
                user.LastEnd = ended;
                return TypedResults.Ok(result);
            }
            finally
            {
                user.Leave(TimeSpan.FromMilliseconds((1 - sigma) * ms));
            }
        });
        return app;
    }

    private sealed record Work(int Ms, double Sigma, double Kappa);

    /// <summary>
    /// A closed-model user (one connection): counted in flight from its request's arrival until its parallel share
    /// after its answer, so a user between answer and next request (seen at tens of ms on a loaded machine) still counts.
    /// </summary>
    private sealed class User
    {
        private readonly object _gate = new();   // System.Threading.Lock is .NET 9+; the SUT builds for net8.0 too
        private bool _counted;
        private int _visits;

        public long LastEnd { get; set; }

        public int Arrive()
        {
            lock (_gate)
            {
                _visits++;
                if (_counted)
                {
                    return Volatile.Read(ref s_inFlight);
                }
                _counted = true;
                return Interlocked.Increment(ref s_inFlight);
            }
        }

        public void Leave(TimeSpan grace)
        {
            int visit;
            lock (_gate)
            {
                visit = _visits;
            }
            _ = Task.Delay(grace).ContinueWith(_ =>
            {
                lock (_gate)
                {
                    if (_visits == visit && _counted)
                    {
                        _counted = false;
                        Interlocked.Decrement(ref s_inFlight);
                    }
                }
            }, TaskScheduler.Default);
        }
    }

    private static async Task<(ContentionResult, long Ended)> ServeAsync(Work work, int users, long previousEnd, CancellationToken ct)
    {
        var arrived = Stopwatch.GetTimestamp();
        var parallel = Ticks((1 - work.Sigma) * work.Ms);
        // The cycle starts at the user's previous answer; at most the parallel share of it is spent before arriving (else
        // the lock's share starts at once), and a user away for longer than a whole request starts afresh.
        var start = arrived - previousEnd > Ticks(work.Ms) ? arrived : Math.Max(previousEnd, arrived - parallel);
        await WaitUntilAsync(start + parallel, ct);
        // A user between its answer and its next request is not counted on arrival; by now it is back.
        var n = Math.Max(users, Volatile.Read(ref s_inFlight));
        var queued = Stopwatch.GetTimestamp();
        await s_lock.WaitAsync(ct);
        var waited = Stopwatch.GetElapsedTime(queued);
        try
        {
            await WaitUntilAsync(Stopwatch.GetTimestamp() + Ticks(work.Sigma * work.Ms), ct);
        }
        finally
        {
            s_lock.Release();
        }
        // Counted again until it is done: requests that arrived together may each have found the lock free at first.
        long deadline;
        do
        {
            n = Math.Max(n, Volatile.Read(ref s_inFlight));
            deadline = start + Ticks(work.Ms * (1 + (work.Sigma * (n - 1)) + (work.Kappa * n * (n - 1))));
            await WaitUntilAsync(deadline, ct);
        }
        while (Volatile.Read(ref s_inFlight) > n);
        var ended = Math.Max(deadline, Stopwatch.GetTimestamp());
        return (new ContentionResult(work.Ms, work.Sigma, work.Kappa, n, Math.Round(waited.TotalMilliseconds, 3),
            Math.Round(Stopwatch.GetElapsedTime(start, ended).TotalMilliseconds, 3)), ended);
    }

    private static long Ticks(double ms) => (long)(ms * Stopwatch.Frequency / 1000);

    private static async Task WaitUntilAsync(long deadline, CancellationToken ct)
    {
        var left = Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), deadline);
        if (left > TimeSpan.Zero)
        {
            await Task.Delay(left, ct);
        }
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
/// <param name="TookMs">Its cycle: T·(1 + σ(n−1) + κn(n−1)) from the user's previous answer (or from its arrival), or more when the
/// lock queue was longer.</param>
public sealed record ContentionResult(int Ms, double Sigma, double Kappa, int InFlight, double WaitedMs, double TookMs);

using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net;
using PerfLab.Load;
using PerfLab.Load.Sockets;

namespace PerfLab.Tests.Load;

/// <summary>
/// The open model's pacer, both kinds (a timer of the lab's event loop, and Task.Delay where there is no loop): a wait
/// never ends before its time (latency is counted from that time), waits end in the order they are due whatever order
/// they were armed in, and the run's stop ends a wait at once, with false.
/// </summary>
public sealed class PacerTests
{
    public static TheoryData<string> Kinds => ["loop", "delay"];

    private static readonly long Ms = Stopwatch.Frequency / 1000;

    private static Http11Connection? Connection(string kind, CancellationToken stop)
    {
        if (kind == "delay")
        {
            return null;
        }
        var connection = new Http11Connection(new IPEndPoint(IPAddress.Loopback, 9), stop);
        Assert.True(connection.Loop is not null, "no epoll loop on this platform");
        return connection;
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task UntilAsync_WaitsArmedOutOfOrder_EndInDueOrderAndNeverEarly(string kind)
    {
        using var stop = new CancellationTokenSource();
        using var connection = Connection(kind, stop.Token);
        int[] offsetsMs = [50, 10, 40, 20, 30, 60];
        var pacers = offsetsMs.Select(_ => Pacer.For(connection, stop.Token)).ToArray();
        var ended = new ConcurrentQueue<(int OffsetMs, long Due, long At, bool Result, bool Armed)>();
        var start = Stopwatch.GetTimestamp() + (100 * Ms);

        // Armed from the test's thread, not the loop's: each earlier one must wake the loop from its longer wait.
        var waits = offsetsMs.Select((offset, i) => WaitAsync(pacers[i], offset, start + (offset * Ms), ended)).ToArray();
        await Task.WhenAll(waits).WaitAsync(TimeSpan.FromSeconds(30));

        var all = ended.ToArray();
        Assert.All(all, e =>
            Assert.True(e.Result && e.At >= e.Due, $"+{e.OffsetMs} ms: ended {(e.At - e.Due) / (double)Ms:0.000} ms after due"));
        if (kind == "loop")
        {
            // One loop fires its timers in due order (Task.Delay's timers promise no order for continuations). A wait
            // already due when it was armed (this thread held up that long) ends at once, before the loop's: left out.
            var armed = all.Where(e => e.Armed).Select(e => e.OffsetMs).ToArray();
            Assert.True(armed.Length >= 2, $"only {armed.Length} waits were still ahead when armed");
            Assert.Equal(armed.Order(), armed);
        }
        foreach (var pacer in pacers)
        {
            pacer.Dispose();
        }
    }

    // A wait further away than EpollLoop.FarTicks is the loop's timerfd, not its wait's timeout: it must end at its
    // time all the same (a timerfd not armed would leave the loop asleep, and this wait to the 30 s guard). Late by up to
    // 3 s passes: on a machine at load average 13 (tests of another tree running) a 300 ms wait ended 489 ms late, and a
    // timerfd that never fires shows as 30 s, not as a few hundred milliseconds.
    [Theory]
    [InlineData(100)]
    [InlineData(300)]
    public async Task UntilAsync_FarWaitOnTheLoop_EndsAtItsTimeNotLater(int offsetMs)
    {
        using var stop = new CancellationTokenSource();
        using var connection = Connection("loop", stop.Token);
        using var pacer = Pacer.For(connection, stop.Token);
        Assert.True(offsetMs * Ms > EpollLoop.FarTicks);

        var due = Stopwatch.GetTimestamp() + (offsetMs * Ms);
        Assert.True(await pacer.UntilAsync(due).AsTask().WaitAsync(TimeSpan.FromSeconds(30)));
        var late = (Stopwatch.GetTimestamp() - due) / (double)Ms;

        Assert.True(late >= 0, $"ended {-late:0.000} ms early");
        Assert.True(late < 3000, $"ended {late:0.0} ms late: the timerfd did not wake the loop at its time");
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task UntilAsync_EarlierWaitArmedWhileTheLoopWaitsForALaterOne_EndsWithoutWaitingForIt(string kind)
    {
        using var stop = new CancellationTokenSource();
        using var connection = Connection(kind, stop.Token);
        using var far = Pacer.For(connection, stop.Token);
        using var near = Pacer.For(connection, stop.Token);
        var farWait = far.UntilAsync(Stopwatch.GetTimestamp() + (60_000 * Ms)).AsTask();
        await Task.Delay(50); // the loop is asleep until the far one's time by now

        var due = Stopwatch.GetTimestamp() + (20 * Ms);
        Assert.True(await near.UntilAsync(due).AsTask().WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.True(Stopwatch.GetTimestamp() >= due);
        Assert.False(farWait.IsCompleted);

        stop.Cancel();
        Assert.False(await farWait.WaitAsync(TimeSpan.FromSeconds(30)));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task UntilAsync_RunStops_EndsTheWaitWithFalse(string kind)
    {
        using var stop = new CancellationTokenSource();
        using var connection = Connection(kind, stop.Token);
        using var pacer = Pacer.For(connection, stop.Token);
        var wait = pacer.UntilAsync(Stopwatch.GetTimestamp() + (60_000 * Ms)).AsTask();

        stop.Cancel();

        Assert.False(await wait.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.False(await pacer.UntilAsync(Stopwatch.GetTimestamp() + (60_000 * Ms)));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task UntilAsync_TimeAlreadyPassed_EndsAtOnce(string kind)
    {
        using var stop = new CancellationTokenSource();
        using var connection = Connection(kind, stop.Token);
        using var pacer = Pacer.For(connection, stop.Token);

        var wait = pacer.UntilAsync(Stopwatch.GetTimestamp() - Ms);

        Assert.True(wait.IsCompletedSuccessfully);
        Assert.True(await wait);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Every_WorkNamesItsNextTimes_RunsAtEachNeverEarlyUntilItIsDone(string kind)
    {
        using var stop = new CancellationTokenSource();
        using var connection = Connection(kind, stop.Token);
        var dues = new List<long>();
        var ran = new List<(long At, int Thread)>();
        var due = Stopwatch.GetTimestamp() + (30 * Ms);
        dues.Add(due);

        long Work()
        {
            ran.Add((Stopwatch.GetTimestamp(), Environment.CurrentManagedThreadId));
            if (ran.Count == 5)
            {
                return long.MaxValue; // done
            }
            due += 25 * Ms;
            dues.Add(due);
            return due;
        }

        await Pacer.Every(connection?.Loop, dues[0], Work, stop.Token).WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal(5, ran.Count);
        Assert.All(ran.Zip(dues), r => Assert.True(r.First.At >= r.Second,
            $"ran {(r.Second - r.First.At) / (double)Ms:0.000} ms before its time"));
        if (kind == "loop")
        {
            // Every run on the loop's own thread, none on the test's or the pool's.
            Assert.Single(ran.Select(r => r.Thread).Distinct());
            Assert.NotEqual(Environment.CurrentManagedThreadId, ran[0].Thread);
        }
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Every_StopWhileTheWorkRuns_EndsOnlyAfterItAndRunsItNoMore(string kind)
    {
        using var stop = new CancellationTokenSource();
        using var connection = Connection(kind, stop.Token);
        using var running = new SemaphoreSlim(0);
        using var release = new ManualResetEventSlim();
        var runs = 0;

        // The work holds until the test lets it go, however late the test's own thread runs: with a 30 s bound, a test
        // host whose threads were all busy for 30 s (three test threads) saw the work end on its own and the pacer
        // stop after it, which is not the overlap this test is for.
        long Work()
        {
            runs++;
            running.Release();
            release.Wait(TimeSpan.FromMinutes(5));
            return Stopwatch.GetTimestamp() + (10 * Ms);
        }

        var every = Pacer.Every(connection?.Loop, Stopwatch.GetTimestamp() + (10 * Ms), Work, stop.Token);
        try
        {
            Assert.True(await running.WaitAsync(TimeSpan.FromSeconds(30)));
            stop.Cancel();
            await Task.Delay(100);
            Assert.False(every.IsCompleted); // a sampler's last sample must not overlap the engine's closing one
        }
        finally
        {
            release.Set();
        }
        await every.WaitAsync(TimeSpan.FromSeconds(30));
        await Task.Delay(100);
        Assert.Equal(1, runs);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Every_WorkThrows_TheTaskFaultsWithItsException(string kind)
    {
        using var stop = new CancellationTokenSource();
        using var connection = Connection(kind, stop.Token);

        var every = Pacer.Every(connection?.Loop, Stopwatch.GetTimestamp() + (10 * Ms),
            () => throw new InvalidOperationException("sampling broke"), stop.Token);

        var thrown = await Assert.ThrowsAsync<InvalidOperationException>(() => every.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Equal("sampling broke", thrown.Message);
        if (connection?.Loop is not null)
        {
            // The loop lives on: a wait armed after the failure still ends at its time.
            using var pacer = Pacer.For(connection, stop.Token);
            Assert.True(await pacer.UntilAsync(Stopwatch.GetTimestamp() + (10 * Ms)).AsTask().WaitAsync(TimeSpan.FromSeconds(30)));
        }
    }

    private static async Task WaitAsync(Pacer pacer, int offsetMs, long due, ConcurrentQueue<(int, long, long, bool, bool)> ended)
    {
        var wait = pacer.UntilAsync(due);
        var armed = !wait.IsCompleted;
        // ConfigureAwait(false): the clock is read where the wait ends (on the loop's thread for the loop's timers).
        var result = await wait.ConfigureAwait(false);
        ended.Enqueue((offsetMs, due, Stopwatch.GetTimestamp(), result, armed));
    }
}

using System.Diagnostics;
using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Experiments.Running.Blocks;

namespace PerfLab.Tests.Experiments.Running;

/// <summary>
/// Idle SUTs stopped between their turns, on real processes: busy loops whose CPU clock grows while they run. A stopped
/// one is charged nothing at all; the one served runs on.
/// </summary>
public sealed class IdleSutsTests
{
    [Fact]
    public async Task Serve_StopsEveryOtherSut_TheyAreChargedNoCpuWhileTheServedOneRuns()
    {
        await using var a = BusyApp.Start();
        await using var b = BusyApp.Start();
        await using var c = BusyApp.Start();
        using (var idle = new IdleSuts([a, b, c], enabled: true))
        {
            idle.Serve(1);
            await WaitStoppedAsync(a.Pid, c.Pid);
            var before = (A: Cpu(a), B: Cpu(b), C: Cpu(c));
            // Watched 400 ms (a stall only lengthens the watch): the stopped ones' clocks stand still, the served one's moves.
            await Task.Delay(400);
            await WaitRunsAsync(b, before.B, "the served SUT kept running");
            Assert.Equal(before.A, Cpu(a));
            Assert.Equal(before.C, Cpu(c));
            Assert.False(ProcessPause.IsStopped(b.Pid));

            idle.Serve(2);
            await WaitStoppedAsync(a.Pid, b.Pid);
            Assert.False(ProcessPause.IsStopped(c.Pid));
            var stoppedB = Cpu(b);
            await Task.Delay(200);
            Assert.Equal(stoppedB, Cpu(b));
        }
        Assert.All(new[] { a, b, c }, app => Assert.False(ProcessPause.IsStopped(app.Pid)));
        await WaitRunsAsync(a, Cpu(a), "a SUT continues once the block ends");
    }

    [Fact]
    public async Task Serve_Disabled_OrAnAppOnAnotherHost_StopsNothing()
    {
        await using var a = BusyApp.Start();
        await using var b = BusyApp.Start();
        using (var idle = new IdleSuts([a, b], enabled: false))
        {
            idle.Serve(0);
            await Task.Delay(100);
            Assert.False(ProcessPause.IsStopped(b.Pid));
        }
        var elsewhere = new BusyApp(null);
        using (var idle = new IdleSuts([a, elsewhere], enabled: true))
        {
            idle.Serve(1);
            await WaitStoppedAsync(a.Pid);
            Assert.False(ProcessPause.Stop(elsewhere.Pid));
        }
        Assert.False(ProcessPause.IsStopped(a.Pid));
    }

    private static long Cpu(IRunningApp app) => CpuClock.ProcessNanoseconds(app.Pid) ?? throw new InvalidOperationException("gone");

    /// <summary>
    /// Until the app's CPU clock passes <paramref name="since"/>: a running busy loop's does within a few ticks, but on a
    /// busy host its share of a core may take longer than a fixed wait (bounded: 10 s; a stopped one never passes).
    /// </summary>
    private static async Task WaitRunsAsync(IRunningApp app, long since, string message)
    {
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (Cpu(app) <= since)
        {
            Assert.True(DateTime.UtcNow < deadline, message);
            await Task.Delay(10);
        }
    }

    private static async Task WaitStoppedAsync(params int[] pids)
    {
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (!pids.All(ProcessPause.IsStopped))
        {
            Assert.True(DateTime.UtcNow < deadline, "the processes were not stopped within 10 s");
            await Task.Delay(10);
        }
    }

    /// <summary>A busy loop (bounded to 60 s) standing in for a SUT process; only its process matters here.</summary>
    private sealed class BusyApp(Process? process) : IRunningApp
    {
        public static BusyApp Start() => new(Process.Start(new ProcessStartInfo("perl", ["-e", "$e = time + 60; 1 while time < $e"]))!);

        public Uri BaseAddress { get; } = new("http://127.0.0.1:1/");
        public int Pid => process?.Id ?? IRunningApp.Elsewhere;
        public bool HasExited => process?.HasExited ?? false;
        public int ExitCode => 0;
        public string TailOfLog(int lines = 15) => "";
        public HttpClient CreateClient(TimeSpan timeout, Uri? through = null) => throw new NotSupportedException();
        public Task<VariantEffect> CheckVariantAsync(CancellationToken ct) => throw new NotSupportedException();

        public async ValueTask DisposeAsync()
        {
            if (process is null)
            {
                return;
            }
            ProcessPause.Continue(process.Id);
            process.Kill();
            await process.WaitForExitAsync();
            process.Dispose();
        }
    }
}

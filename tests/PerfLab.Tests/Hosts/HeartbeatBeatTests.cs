using System.Collections.Concurrent;
using PerfLab.Hosts;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// The beat each side of a role's session writes (<see cref="Heartbeat.Beat"/>): from a thread of its own, so a starved
/// thread pool on a busy host (CI saw roles end "before they were ready") cannot silence it, and never after it is
/// disposed.
/// </summary>
public sealed class HeartbeatBeatTests
{
    [Fact]
    public async Task Beat_WritesAtOnceFromAThreadOfItsOwnNotThePools_AndNotOnceDisposed()
    {
        var beats = new ConcurrentQueue<(bool Pool, string? Name)>();
        var first = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var beat = Heartbeat.Beat(() =>
        {
            beats.Enqueue((Thread.CurrentThread.IsThreadPoolThread, Thread.CurrentThread.Name));
            first.TrySetResult();
        });
        try
        {
            await first.Task.WaitAsync(TimeSpan.FromSeconds(30));
        }
        finally
        {
            beat.Dispose();
        }
        var written = beats.Count;

        // Disposed: no beat comes in the next interval and a half (one thread's wait ended by its cancellation).
        await Task.Delay(Heartbeat.Every * 1.5);

        Assert.Equal(written, beats.Count);
        Assert.All(beats, b => Assert.Equal((false, "perflab heartbeat"), b));
    }
}

using System.Globalization;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace PerfLab.Hosts;

/// <summary>
/// The controller's end of <see cref="AppJitWatch"/>: the app's JIT events read on its host, each given to the callbacks
/// as its line arrives, its time put on this machine's clock. Disposing ends the watch on the host.
/// </summary>
internal sealed class RemoteJitWatch : IAsyncDisposable
{
    private static readonly TimeSpan AnswerTimeout = TimeSpan.FromSeconds(10);
    private static readonly string[] Kinds = ["jit", "jit-queue", "jit-watching", "jit-failed"];

    private readonly RoleSession _session;

    private RemoteJitWatch(RoleSession session) => _session = session;

    /// <summary>The watch, or null when the role could not attach (the process refused, or its session has ended).</summary>
    public static async Task<RemoteJitWatch?> StartAsync(RoleSession session, ClockOffset clock, Action<long, OptimizationTier> onCompiled,
        Action<int> onBackground, CancellationToken ct)
    {
        var answer = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        session.Handle("jit", line =>
        {
            var parts = line.Split(' ');
            if (parts.Length == 2 && long.TryParse(parts[0], CultureInfo.InvariantCulture, out var unixMs)
                && int.TryParse(parts[1], CultureInfo.InvariantCulture, out var tier))
            {
                onCompiled(clock.Here(unixMs), (OptimizationTier)tier);
            }
        });
        session.Handle("jit-queue", line =>
        {
            if (int.TryParse(line, CultureInfo.InvariantCulture, out var queued))
            {
                onBackground(queued);
            }
        });
        session.Handle("jit-watching", _ => answer.TrySetResult(true));
        session.Handle("jit-failed", _ => answer.TrySetResult(false));
        var watching = false;
        try
        {
            watching = session.Send("jit-watch")
                && await Task.WhenAny(answer.Task, session.Ended).WaitAsync(AnswerTimeout, ct) == answer.Task && await answer.Task;
        }
        catch (TimeoutException)
        {
        }
        finally
        {
            if (!watching)
            {
                Forget(session);
            }
        }
        // Without JIT events the warm-up runs to its cap, as for a local process that refused the session.
        return watching ? new RemoteJitWatch(session) : null;
    }

    private static void Forget(RoleSession session)
    {
        foreach (var kind in Kinds)
        {
            session.Handle(kind, null);
        }
    }

    public ValueTask DisposeAsync()
    {
        Forget(_session);
        _session.Send("jit-stop");
        return ValueTask.CompletedTask;
    }
}

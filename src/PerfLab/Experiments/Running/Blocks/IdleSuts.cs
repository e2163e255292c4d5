using PerfLab.Apps;
using PerfLab.Common;

namespace PerfLab.Experiments.Running.Blocks;

/// <summary>
/// The SUTs of an alternating block that wait for their turn: stopped (SIGSTOP) while another variant is loaded, so
/// only the one being measured runs. An idle SUT is not idle: after its slot it keeps compiling at tier 1 in the
/// background (tens of promotions a second), runs its timers, counters and garbage collections, all on the two cores
/// the measured variant, PostgreSQL and the generator share; that CPU lands in a random other variant's slot.
/// Stopped, its leftover work waits for its own next turn. An app on another host is left running (no process here).
/// <c>PERFLAB_IDLE_SUTS=run</c> keeps every SUT running, as before, to compare.
/// </summary>
public sealed class IdleSuts : IDisposable
{
    public const string SwitchVariable = "PERFLAB_IDLE_SUTS";

    private readonly IReadOnlyList<IRunningApp> _suts;
    private readonly bool[] _stopped;
    private readonly bool _enabled;

    public IdleSuts(IReadOnlyList<IRunningApp> suts, bool enabled)
    {
        _suts = suts;
        _stopped = new bool[suts.Count];
        _enabled = enabled && suts.Count > 1;
    }

    /// <summary>Whether idle SUTs are stopped by default: unless <c>PERFLAB_IDLE_SUTS=run</c>.</summary>
    public static bool StopByDefault =>
        !string.Equals(Environment.GetEnvironmentVariable(SwitchVariable), "run", StringComparison.OrdinalIgnoreCase);

    /// <summary>Lets SUT <paramref name="serving"/> run and stops every other one still running.</summary>
    public void Serve(int serving)
    {
        if (!_enabled)
        {
            return;
        }
        Continue(serving);
        for (var i = 0; i < _suts.Count; i++)
        {
            // An in-process block's variants are one process: the one serving.
            if (i != serving && !_stopped[i] && !_suts[i].HasExited && _suts[i].Pid != _suts[serving].Pid)
            {
                _stopped[i] = ProcessPause.Stop(_suts[i].Pid);
            }
        }
    }

    /// <summary>Continues every stopped SUT: before anything else talks to them (cost meters, traces, stopping them).</summary>
    public void Dispose()
    {
        for (var i = 0; i < _suts.Count; i++)
        {
            Continue(i);
        }
    }

    private void Continue(int i)
    {
        if (_stopped[i])
        {
            ProcessPause.Continue(_suts[i].Pid);
            _stopped[i] = false;
        }
    }
}

using System.Diagnostics;
using PerfLab.Common;
using PerfLab.SutProcesses;

namespace PerfLab.Apps;

/// <summary>One started process of a user's app; its variant is checked from outside (<see cref="EffectCheck"/>).</summary>
internal sealed class RunningApp(Process process, int pid, Uri baseAddress, string logFile, AppLaunch launch) : IRunningApp
{
    public static readonly TimeSpan StopGrace = TimeSpan.FromSeconds(10);

    public Uri BaseAddress => baseAddress;
    public int Pid => pid;
    public bool HasExited => process.HasExited;
    public int ExitCode => process.ExitCode;
    public string TailOfLog(int lines = 15) => SutProcess.Tail(logFile, lines);
    public HttpClient CreateClient(TimeSpan timeout, Uri? through = null) =>
        SutProcess.ClientFor(through ?? baseAddress, http2Only: false, timeout);

    public async Task<VariantEffect> CheckVariantAsync(CancellationToken ct)
    {
        var view = await RuntimeObservation.ReadAsync(pid, ct);
        var configuration = launch.Configuration;
        return EffectCheck.Check(launch.Environment, configuration, launch.ConfigurationVia == ConfigurationVia.Environment, view);
    }

    public async ValueTask DisposeAsync()
    {
        await ProcessTree.StopAsync(process, StopGrace);
        process.Dispose();
    }
}

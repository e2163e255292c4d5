using PerfLab.Common;
using PerfLab.SutProcesses;

namespace PerfLab.Apps;

/// <summary>
/// The built-in SUT as an app under test. What only it has stays here and in Sut/: its Sut:* settings, its database
/// (the connection string in the launch), its target-framework builds, and /info, which reports its switches from the
/// inside; the environment /info does not speak for is checked from outside as for any app.
/// </summary>
/// <param name="launchFor">The launch for a log file: the runner's connection string, CPU set and the variant's switches.</param>
public sealed class BuiltInSut(Func<string, SutLaunch> launchFor) : IAppUnderTest
{
    /// <summary>
    /// Nothing up front: a framework build that cannot be published here (missing packs) fails that variant's runs
    /// with the reason, and the other variants still run.
    /// </summary>
    public Task PrepareAsync(IProgress<string>? progress, CancellationToken ct) => Task.CompletedTask;

    public async Task<IRunningApp> StartAsync(string logFile, IProgress<string>? progress, CancellationToken ct)
    {
        var launch = launchFor(logFile);
        return new RunningSut(await SutProcess.StartAsync(launch, progress: progress, ct: ct), launch);
    }

    private sealed class RunningSut(SutProcess sut, SutLaunch launch) : IRunningApp
    {
        public Uri BaseAddress => sut.BaseAddress;
        public int Pid => sut.Pid;
        public bool HasExited => sut.Process.HasExited;
        public int ExitCode => sut.Process.ExitCode;
        public string TailOfLog(int lines = 15) => sut.TailOfLog(lines);
        public HttpClient CreateClient(TimeSpan timeout, Uri? through = null) => sut.CreateClient(timeout, through);

        public async Task<VariantEffect> CheckVariantAsync(CancellationToken ct)
        {
            SutInfo info;
            try
            {
                info = await sut.GetInfoAsync(ct);
            }
            catch (Exception ex) when (ex is HttpRequestException or System.Text.Json.JsonException
                || (ex is TaskCanceledException && !ct.IsCancellationRequested))
            {
                throw new PerfLabException($"the SUT did not answer /info: {ex.Message}", Common.ExitCode.Failed, ex);
            }
            var check = VariantCheck.Check(launch, info);
            var fromInfo = new VariantEffect(check.Confirmed, [], check.Mismatches, info.ToMap());
            var rest = launch.Environment.Where(p => !check.CoveredEnvironment.Contains(p.Key)).ToDictionary();
            if (rest.Count == 0)
            {
                return fromInfo;
            }
            var view = await RuntimeObservation.ReadAsync(sut.Pid, ct);
            return VariantEffect.Combine(fromInfo, EffectCheck.Check(rest, new Dictionary<string, string>(), false, view));
        }

        public ValueTask DisposeAsync() => sut.DisposeAsync();
    }
}

using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Load;
using PerfLab.Results;
using PerfLab.SutProcesses;

namespace PerfLab.Experiments.Running;

/// <summary>A started app whose variant check found nothing contradicting it, or why there is none.</summary>
/// <param name="Info">What the app showed of itself (the built-in SUT's /info, or the runtime and GC mode read from outside).</param>
/// <param name="Effect">What was confirmed of the variant and what could not be; null when the app did not start.</param>
public sealed record SutStart(IRunningApp? Sut, IReadOnlyDictionary<string, string> Info, RunFailure? Failure,
    VariantEffect? Effect = null);

/// <summary>
/// What a run's conditions change in the built-in SUT's launch: the database reached through a proxy, fewer CPUs; and
/// the token made for an in-process block's SUT.
/// </summary>
public sealed record SutOverrides(string? ConnectionString, string? CpuSet, string? DiagnosticsToken = null);

/// <summary>
/// Starts the app under test for a variant (the built-in SUT, or the experiment's own app) and checks that the variant
/// really took effect: a variant shown not to have taken effect is a failed run, never a result.
/// </summary>
public sealed class SutSession(RunRequest request, IRunObserver observer)
{
    private readonly Dictionary<(string Experiment, string Variant), IAppUnderTest> _apps = [];

    /// <summary>The app under test for a variant, as the profile runs it: made once per variant, so its build is resolved once.</summary>
    public IAppUnderTest AppFor(ExperimentDefinition experiment, VariantDefinition variant)
    {
        // Locked: a block starts its variants' apps at once.
        lock (_apps)
        {
            if (!_apps.TryGetValue((experiment.Name, variant.Name), out var app))
            {
                app = experiment.App is { } own
                    ? request.App.OwnApp(own.LaunchFor(variant, request.Layout.Sut), observer)
                    : request.App.BuiltInSut(logFile => Launch(variant, logFile), observer);
                _apps[(experiment.Name, variant.Name)] = app;
            }
            return app;
        }
    }

    /// <summary>Builds every variant's app before the first run, so a build never lands inside the measured runs.</summary>
    public async Task PrepareAsync(ExperimentDefinition experiment, IReadOnlyList<VariantDefinition> variants, CancellationToken ct)
    {
        foreach (var variant in variants)
        {
            await AppFor(experiment, variant).PrepareAsync(observer, ct);
        }
    }

    /// <param name="overrides">The run's conditions (the built-in SUT only): a proxied connection string, a CPU set.</param>
    public async Task<SutStart> StartAsync(ExperimentDefinition experiment, VariantDefinition variant, string logName, CancellationToken ct,
        SutOverrides? overrides = null)
    {
        var none = new Dictionary<string, string>();
        var what = experiment.App is null ? "the SUT" : "the app";
        IRunningApp app;
        try
        {
            // Absolute, so that Launch's own Path.Combine with the log folder keeps it as it is.
            var logFile = Path.GetFullPath(Path.Combine(request.LogFolder, logName));
            // A run's conditions change the built-in SUT's launch run by run (each run has its own proxy).
            var appUnderTest = overrides is not null && experiment.App is null
                ? request.App.BuiltInSut(file => Launch(variant, file, overrides), observer)
                : AppFor(experiment, variant);
            app = await appUnderTest.StartAsync(logFile, observer, ct);
        }
        catch (PerfLabException ex)
        {
            return new SutStart(null, none,
                new RunFailure(FailureKind.SutDidNotStart, $"{what} did not start: {FirstLine(ex.Message)}", RestOf(ex.Message)));
        }
        catch (OperationCanceledException)
        {
            return new SutStart(null, none, new RunFailure(FailureKind.Interrupted, $"interrupted before {what} was ready"));
        }

        var (effect, failure) = await CheckAsync(app, what, ct);
        if (failure is not null)
        {
            await app.DisposeAsync();
            return new SutStart(null, failure.Info ?? none, failure, effect);
        }
        return new SutStart(app, effect!.Observed, null, effect);
    }

    private static async Task<(VariantEffect? Effect, RunFailure? Failure)> CheckAsync(IRunningApp app, string what,
        CancellationToken ct)
    {
        VariantEffect effect;
        try
        {
            effect = await app.CheckVariantAsync(ct);
        }
        catch (OperationCanceledException) when (ct.IsCancellationRequested)
        {
            return (null, new RunFailure(FailureKind.Interrupted, "interrupted before the variant was checked"));
        }
        catch (PerfLabException ex)
        {
            // An app that died between its readiness and the check is a crash, whatever the refused connection said.
            return (null, await ExitedAsync(app)
                ? new RunFailure(FailureKind.SutCrashed, $"{what} crashed before the variant was checked (exit code {app.ExitCode})",
                    app.TailOfLog())
                : new RunFailure(FailureKind.SutDidNotAnswerInfo, ex.Message, app.TailOfLog()));
        }
        return effect.NotInEffect.Count > 0
            ? (effect, new RunFailure(FailureKind.VariantNotInEffect,
                "the variant did not take effect: " + string.Join("; ", effect.NotInEffect),
                app.TailOfLog(), effect.Observed))
            : (effect, null);
    }

    // A killed process closes its sockets before its parent reaps it: a refused connection may come a moment first.
    private static async Task<bool> ExitedAsync(IRunningApp app)
    {
        for (var i = 0; i < 10 && !app.HasExited; i++)
        {
            await Task.Delay(50);
        }
        return app.HasExited;
    }

    /// <summary>
    /// One short, unmeasured run before the first measured one: the first SUT process of an invocation otherwise meets
    /// cold file, database and CPU caches that no later run meets (measured here: the first run of an A/A pair 40 %
    /// slower), a bias against whichever variant runs first. Only before a first block whose variants run in turn: a
    /// block whose variants take turns in slots starts them all at once and warms them up together before it measures,
    /// so none meets caches the others do not, and a priming run would only cost its seconds.
    /// </summary>
    public async Task PrimeAsync(ExperimentDefinition experiment, VariantDefinition variant, CancellationToken ct)
    {
        // Priming stays with the built-in SUT, whose first process also meets a cold database.
        if (experiment.App is not null)
        {
            return;
        }
        observer.Report("priming: one unmeasured run to warm caches...");
        try
        {
            var priming = Path.GetFullPath(Path.Combine(request.LogFolder, "priming.log"));
            await using var sut = await request.App.BuiltInSut(file => Launch(variant, file), observer).StartAsync(priming, observer, ct);
            var primingProfile = new ProfileDefinition(TimeSpan.Zero, TimeSpan.FromSeconds(3), 1, 1, null);
            await LoadEngine.RunAsync(ScenarioPlans.BuildPlan(experiment, variant, primingProfile, sut), progress: null, ct);
        }
        catch (PerfLabException ex)
        {
            // The measured runs will meet the same problem and report it with its log; priming only warms.
            observer.Report($"priming failed: {FirstLine(ex.Message)}");
        }
        catch (OperationCanceledException)
        {
        }
    }


    private SutLaunch Launch(VariantDefinition variant, string logName, SutOverrides? overrides = null) =>
        new(variant.Settings, variant.Env, overrides?.ConnectionString ?? request.ConnectionString, variant.Framework,
            CpuSet: overrides?.CpuSet ?? request.Layout.Sut, LogFile: Path.Combine(request.LogFolder, logName),
            DiagnosticsToken: overrides?.DiagnosticsToken);

    private static string FirstLine(string text) => text.Split('\n')[0].Trim();

    private static string? RestOf(string text) => text.Contains('\n') ? text[(text.IndexOf('\n') + 1)..] : null;
}

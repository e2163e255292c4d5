using System.Diagnostics;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Load;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Results;
using PerfLab.Tests.Load;
using PerfLab.Experiments.Running.Blocks;
using PerfLab.Experiments.Running.Budget;
using PerfLab.Experiments.Running.Capacity;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Tests.Experiments.Running;

/// <summary>
/// A capacity run's cost is metered as a plain run's: its load measurement comes from the same request (the db host's
/// backends included, so a run over hosts reads the database's CPU there), and each step's window is told to the meter.
/// The backends are a real <see cref="LocalBackendsCpu"/> over a real process tree standing for a postmaster: its
/// children are read by pid at each edge, none serves this process (it holds no connection to it), so the database
/// part of the window is zero, not unread (null).
/// </summary>
public sealed class CapacityCostTests
{
    [Fact]
    public void For_CapacityExperiment_ItsRecorderHasTheRequestsBackendsAsAPlainRunHas()
    {
        var experiment = ExperimentLoader.LoadFile(Path.Combine(ExperimentLoader.DefaultFolder, "sync-async-capacity.yaml"));
        var backends = new LocalBackendsCpu(new LocalPostgres(Environment.ProcessId, 5432), Environment.ProcessId);
        var request = new RunRequest([experiment], new LabRunChoices(ProfileName.Quick), new CoreLayout(null, null, null, "test"))
        {
            LogFolder = Path.GetTempPath(),
            ConnectionString = "Host=127.0.0.1;Port=5432;Database=perflab",
            DatabaseBackends = backends,
        };
        var block = new BlockRun(new ExperimentProgress(experiment, new StoppingRule(1, 1, null)), experiment.Variants, 1,
            new RunPlan([new PlannedExperiment(experiment.Name, 10, experiment.Variants.Count, 1)]));
        var measurements = new Measurements(request, new Silent());

        var capacity = Assert.IsType<CapacityMeasurement>(measurements.For(block, experiment.Variants[0]));
        var plain = measurements.ThroughLoadEngine(block, experiment.Variants[0]);

        Assert.Same(backends, capacity.Recorder.DatabaseBackends);
        Assert.Same(plain.DatabaseBackends, capacity.Recorder.DatabaseBackends);
        Assert.Same(request.Load, capacity.Recorder.Load);
    }

    [Fact]
    public async Task RunAsync_CostMeterAsProbe_MetersTheStepsWindowWithTheBackendsReadAtBothEdges()
    {
        await using var server = await TestServer.StartAsync();
        // Two children that do nothing, bounded in time, killed with their parent at the end.
        using var postmaster = Process.Start(new ProcessStartInfo("sh", ["-c", "sleep 20 & sleep 20 & wait"]))!;
        try
        {
            await WaitForChildrenAsync(postmaster.Id);
            var meter = new CostMeter(() => CpuClock.ProcessNanoseconds(Environment.ProcessId),
                new LocalBackendsCpu(new LocalPostgres(postmaster.Id, 5432), Environment.ProcessId));
            var scenario = new ScenarioPlan("capacity", LoadPlanBuilder.Open(1), RequestFeed.Single(server.Url("/fast").ToString()));
            var settings = new CapacityStepSettings(TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(0.5));
            var probe = new CapacityProbe(scenario, CapacitySlo.Parse("p99<100ms", null), settings) { Probe = meter };

            // Not the first step: that one warms up until the throughput settles, up to 10 s.
            var (step, load) = await probe.RunAsync(2, "climb", 100, CancellationToken.None);
            var window = meter.Take(load.Scenarios.Sum(s => s.Requests)) ?? throw new Xunit.Sdk.XunitException("no window metered");

            // The meter's edges are the step's window, its requests the step's (100 RPS for 2 s: fewer on a busy machine).
            Assert.InRange(window.Seconds, load.MeasuredSeconds - 0.2, load.MeasuredSeconds + 0.2);
            Assert.Equal(step.Requests, window.Requests);
            Assert.True(window.Requests > 0, "the step completed requests");
            Assert.True(window.AppCpuSeconds > 0, "this process sent the step's requests and served them");
            Assert.Equal(0, window.DatabaseCpuSeconds);
        }
        finally
        {
            postmaster.Kill(entireProcessTree: true);
            await postmaster.WaitForExitAsync();
        }
    }

    private static async Task WaitForChildrenAsync(int pid)
    {
        for (var i = 0; i < 100 && PostgresBackends.Children(pid).Count < 2; i++)
        {
            await Task.Delay(20);
        }
        Assert.Equal(2, PostgresBackends.Children(pid).Count);
    }

    private sealed class Silent : IRunObserver
    {
        public void RunStarting(RunPosition position)
        {
        }

        public void RunFinished(RunPosition position, RunRecord record)
        {
        }

        public void BlockFinished(BlockProgress progress)
        {
        }

        public void Report(string value)
        {
        }
    }
}

using PerfLab.Experiments.Running;

namespace PerfLab.Tests.Experiments.Running;

public sealed class RunHaltTests
{
    [Fact]
    public void Fault_ABugMidRun_ReasonNamesItAndTheStackGoesToTheLogFolder()
    {
        var logs = Path.Combine(Path.GetTempPath(), "perflab-halt-" + Guid.NewGuid().ToString("N"));
        Exception bug;
        try
        {
            _ = new List<int>()[3];
            throw new InvalidOperationException("unreachable");
        }
        catch (ArgumentOutOfRangeException ex)
        {
            bug = ex;
        }

        var halt = RunHalt.Fault(bug, logs);

        try
        {
            Assert.Equal(RunHaltKind.Fault, halt.Kind);
            Assert.StartsWith("perflab failed unexpectedly (ArgumentOutOfRangeException: ", halt.Reason, StringComparison.Ordinal);
            Assert.Contains("the runs before it are kept", halt.Reason, StringComparison.Ordinal);
            Assert.Contains(nameof(Fault_ABugMidRun_ReasonNamesItAndTheStackGoesToTheLogFolder),
                File.ReadAllText(Path.Combine(logs, "perflab-fault.txt")), StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(logs, recursive: true);
        }
    }
}

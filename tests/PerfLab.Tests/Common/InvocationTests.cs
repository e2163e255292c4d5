using PerfLab.Common;

namespace PerfLab.Tests.Common;

public sealed class InvocationTests
{
    private static readonly DateTimeOffset _processStart = DateTimeOffset.FromUnixTimeMilliseconds(1_764_150_000_000);

    [Fact]
    public void Read_ScriptStartedBeforeItsBuild_CountsFromTheScript()
    {
        // The ./perflab script started 4 min 12.5 s before the process: its build is inside the budget.
        var script = _processStart - TimeSpan.FromSeconds(252.5);

        Assert.Equal(script, Invocation.Read(script.ToUnixTimeMilliseconds().ToString(System.Globalization.CultureInfo.InvariantCulture),
            _processStart));
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("soon")]
    [InlineData("-5")]
    public void Read_NoUsableValue_CountsFromTheProcess(string? value) =>
        Assert.Equal(_processStart, Invocation.Read(value, _processStart));

    [Theory]
    [InlineData(-2 * 3600)] // two hours before: left in a shell's environment, not this invocation's
    [InlineData(30)]        // after the process started: not its script
    public void Read_ImplausibleTime_CountsFromTheProcess(int secondsFromProcessStart)
    {
        var value = (_processStart + TimeSpan.FromSeconds(secondsFromProcessStart)).ToUnixTimeMilliseconds();

        Assert.Equal(_processStart, Invocation.Read(value.ToString(System.Globalization.CultureInfo.InvariantCulture), _processStart));
    }
}

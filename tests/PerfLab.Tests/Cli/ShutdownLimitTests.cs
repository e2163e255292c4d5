using PerfLab.Cli;

namespace PerfLab.Tests.Cli;

public sealed class ShutdownLimitTests
{
    [Theory]
    [InlineData("run sync-async", 30)]
    [InlineData("run sync-async --invocations 1", 30)]
    [InlineData("load http://127.0.0.1:5000/ -c 4", 30)]
    [InlineData("run sync-async --invocations 3", 60)]
    [InlineData("compare a.dll --url / --variant \"b: X=1\" --invocations 2", 60)]
    public void For_InvocationsAboveOne_LeavesTheChildsLimitAndTheCombiningElseOneProcesssLimit(string line, int seconds)
    {
        var parse = PerfLabCli.CreateRoot().Parse(line);

        Assert.Empty(parse.Errors);
        Assert.Equal(TimeSpan.FromSeconds(seconds), ShutdownLimit.For(parse));
    }
}

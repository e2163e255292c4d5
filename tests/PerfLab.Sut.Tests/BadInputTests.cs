using System.Net;
using System.Text.Json;

namespace PerfLab.Sut.Tests;

/// <summary>
/// Bad input answered as problem details. Every test only reads, so the class shares one SUT (<see cref="SharedSut"/>).
/// </summary>
public sealed class BadInputTests(SeededSut shared) : IClassFixture<SeededSut>
{
    private readonly SutHost _sut = shared.Sut;

    [Theory]
    [InlineData("/customer/orders?pageSize=0", "pageSize")]
    [InlineData("/customer/orders?pageSize=1001", "pageSize")]
    [InlineData("/customer/orders?pageSize=abc", "pageSize")]
    [InlineData("/customer/orders?pageNumber=0", "pageNumber")]
    [InlineData("/customer/orders?pageNumber=-4", "pageNumber")]
    [InlineData("/customer/products?pageSize=5000", "pageSize")]
    [InlineData("/customer/products?pageNumber=0", "pageNumber")]
    [InlineData("/customer/orders/0", "id")]
    [InlineData("/customer/orders/-1", "id")]
    [InlineData("/customer/orders/abc", "id")]
    [InlineData("/customer/orders/2147483648", "id")]
    [InlineData("/weatherforecast-sync?ms=-1", "ms")]
    [InlineData("/weatherforecast-async?ms=10001", "ms")]
    [InlineData("/diagnostics/sync?ms=x", "ms")]
    [InlineData("/diagnostics/async?ms=99999", "ms")]
    [InlineData("/diagnostics/sync-over-async?ms=1.5", "ms")]
    [InlineData("/diagnostics/contention?sigma=1.5", "sigma")]
    [InlineData("/diagnostics/contention?sigma=abc", "sigma")]
    [InlineData("/diagnostics/contention?kappa=-0.1", "kappa")]
    [InlineData("/diagnostics/contention?ms=0", "ms")]
    public async Task Get_BadParameter_Answers400ProblemDetailsNamingIt(string path, string parameter)
    {
        using var response = await _sut.Client.GetAsync(path);
        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync()).RootElement;
        Assert.Equal(400, body.GetProperty("status").GetInt32());
        Assert.True(body.GetProperty("errors").TryGetProperty(parameter, out _), $"errors should name '{parameter}': {body}");
    }

    [Fact]
    public async Task Get_UnknownOrderId_Answers404ProblemDetails()
    {
        using var response = await _sut.Client.GetAsync("/customer/orders/99999");
        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync()).RootElement;
        Assert.Equal(404, body.GetProperty("status").GetInt32());
        Assert.Contains("99999", body.GetProperty("detail").GetString());
    }

    [Fact]
    public async Task Get_PageBeyondTheData_AnswersAnEmptyList()
    {
        var page = await _sut.GetJsonAsync($"/customer/orders?pageNumber={int.MaxValue}&pageSize=1000");
        Assert.Equal(0, page.GetArrayLength());
    }
}

#include "predict.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "common.hpp"
#include "core/comm/time_model.hpp"

namespace commlab::lab {

namespace {

// A computed answer asked to 4 significant figures is right within one unit
// of its fourth figure (a student's rounding, and one more in the last
// place): 6321.5 takes 6320.5 to 6322.5. A relative tolerance of 0.1%
// took up to ten units, so that one alpha more or less (5 us in 6322, 1.47
// in 8235) passed where the question asks the steps to be counted.
double four_figures(double answer) {
  const double size = std::fabs(answer);
  return size > 0 ? std::pow(10, std::floor(std::log10(size)) - 3) / size : 0;
}

// The time's slips: a term left out, a unit taken for another.
std::vector<Slip> time_slips(const Question& q, double alpha_part, double bytes_part) {
  std::vector<Slip> s = {
      {{bytes_part}, "", "you left alpha out: every step costs alpha too, however large its bytes"},
      {{alpha_part}, "", "you left the bytes out: a step costs its bytes' time as well as alpha"},
      {{alpha_part + bytes_part * 1e9 / 1073741824.0},
       "",
       "you took 1 GB as 2^30 bytes: in GB/s, 1 GB is 10^9 bytes"},
      {{alpha_part + bytes_part * 1000},
       "",
       "you took beta as 1 over the GB/s in us per byte: 1 GB/s is 1000 bytes per us"}};
  if (q.text.find("KiB") != std::string::npos)
    s.push_back({{alpha_part + bytes_part * 1000 / 1024},
                 "",
                 "you took 1 KiB as 1000 bytes: a KiB is 1024 bytes"});
  if (q.text.find("MiB") != std::string::npos)
    s.push_back({{alpha_part + bytes_part * 1e6 / 1048576},
                 "",
                 "you took 1 MiB as 10^6 bytes: a MiB is 1048576 bytes"});
  return s;
}

}  // namespace

double predicted_us(const Question& q, const char* algo_key, size_t count,
                    std::pair<double, double> terms) {
  const Operation& op = operation(q);
  const int P = int(need_within(q, "P", 1, 1 << 20));
  const Traffic t = algorithm(q, op, algo_key).model({P, count, 4, 0});
  const double GBps = need_positive(q, "GBps", false);  // a time over 0 GB/s is no answer
  return alpha_beta(terms.first * need_positive(q, "alpha_us"),
                    terms.second > 0 ? GBps : std::numeric_limits<double>::infinity())
      .predict_us(t);
}

Expected predict(const Question& q) {
  const size_t count = size_t(need_within(q, "count", 0, int64_t(1) << 40));
  const double alpha_part = predicted_us(q, "algorithm", count, {1, 0}),
               bytes_part = predicted_us(q, "algorithm", count, {0, 1});
  // A slip's own formula, a x alpha + b x N x beta (lab 04, Part 3).
  if (q.spec.contains("a") || q.spec.contains("b")) {
    const double beta = 1 / (1000 * need_positive(q, "GBps", false));
    return number(need<double>(q, "a") * need_positive(q, "alpha_us") +
                      need<double>(q, "b") * double(count) * 4 * beta,
                  "us", q.text);
  }
  Expected e = number(predicted_us(q, "algorithm", count), "us", q.text);
  e.rel_tolerance = four_figures(e.numbers.front());
  std::vector<Slip> terms = time_slips(q, alpha_part, bytes_part);
  // A step more or fewer: named where one alpha is more than a rounding.
  const double alpha = need_positive(q, "alpha_us");
  if (alpha > kSlipMargin * e.rel_tolerance * e.numbers.front())
    for (double sign : {1.0, -1.0}) {
      if (sign < 0 && alpha_part < 1.5 * alpha) continue;  // one step: "you left alpha out"
      terms.push_back({{e.numbers.front() + sign * alpha},
                       "",
                       fmt::format("that is one step {} than the schedule has (one alpha, {} us): "
                                   "list its steps again, each costs alpha",
                                   sign > 0 ? "more" : "fewer", alpha)});
    }
  e.slips.insert(e.slips.begin(), terms.begin(), terms.end());
  return e;
}

}  // namespace commlab::lab

#include <poslsh/argument_error.h>
#include "online_softmax.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

#include "internal/attention_work.h"

namespace poslsh::detail {
namespace {
// exp(x) is a normal number for x >= kExpFloor: float e^-87 = 1.6e-38 >
// FLT_MIN = 1.18e-38; double e^-708 = 3.3e-308 > DBL_MIN = 2.2e-308.
template <typename Scalar>
constexpr Scalar kExpFloor = std::is_same_v<Scalar, float> ? Scalar(-87) : Scalar(-708);

// seg = exp(seg), with the weights of arguments below kExpFloor (and of -inf)
// flushed to exactly 0. Eigen's packet exp (AVX) does the exponentials; its
// select is not vectorised in Eigen 3.4 and would call the scalar libm exp
// per entry (a large share of exact attention's time: docs/benchmarks.md).
// The flush is a plain
// loop the compiler vectorises. Eigen's exp clamps its argument, so it never
// returns a denormal; every result below e^kExpFloor is flushed.
template <typename Scalar>
void flushed_exp(Eigen::Map<Eigen::Array<Scalar, Eigen::Dynamic, 1>> seg) {
  static const Scalar smallest = std::exp(kExpFloor<Scalar>);
  seg = seg.exp();
  Scalar* x = seg.data();
  for (Eigen::Index c = 0; c < seg.size(); ++c) x[c] = x[c] < smallest ? Scalar(0) : x[c];
}
}  // namespace

template <typename Scalar>
OnlineSoftmax<Scalar>::OnlineSoftmax(Eigen::Index rows, Eigen::Index /*d*/, Eigen::Index dv)
    : m_(rows), l_(rows), o_(rows, dv), s_(kQueryTile, kKeyTile) {
  reset(0);
}

template <typename Scalar>
void OnlineSoftmax<Scalar>::reset(Eigen::Index row0) {
  row0_ = row0;
  m_.setConstant(-std::numeric_limits<Scalar>::infinity());
  l_.setZero();
  o_.setZero();
  beta_ = 0;
}

template <typename Scalar>
void OnlineSoftmax<Scalar>::accumulate(const ConstRowMatrixRef<Scalar>& q,
                                       const ConstRowMatrixRef<Scalar>& k,
                                       const ConstRowMatrixRef<Scalar>& v, Eigen::Index q0,
                                       Eigen::Index q1, Eigen::Index k0, Eigen::Index k1,
                                       const LogitRule& rule) {
  if (q0 < row0_ || q1 > row0_ + rows())
    throw std::logic_error("OnlineSoftmax::accumulate: query range outside the state's rows");
  for (Eigen::Index qa = q0; qa < q1; qa += kQueryTile) {
    const Eigen::Index qb = std::min(q1, qa + kQueryTile);
    for (Eigen::Index ka = k0; ka < k1; ka += kKeyTile) {
      const Eigen::Index kb = std::min(k1, ka + kKeyTile);
      // A tile the rule masks entirely would add exactly nothing: skip it.
      if (rule.causal && ka > qb - 1) break;
      if (rule.band >= 0) {
        if (ka > qb - 1 + rule.band) break;
        if (kb - 1 < qa - rule.band) continue;
      }
      accumulate_tile(q, k, v, qa, qb, ka, kb, rule);
    }
  }
}

template <typename Scalar>
void OnlineSoftmax<Scalar>::accumulate_tile(const ConstRowMatrixRef<Scalar>& q,
                                            const ConstRowMatrixRef<Scalar>& k,
                                            const ConstRowMatrixRef<Scalar>& v, Eigen::Index qa,
                                            Eigen::Index qb, Eigen::Index ka, Eigen::Index kb,
                                            const LogitRule& rule) {
  using Array = Eigen::Array<Scalar, Eigen::Dynamic, 1>;
  const Eigen::Index rq = qb - qa, ck = kb - ka;
  const Scalar scale = Scalar(1) / std::sqrt(static_cast<Scalar>(q.cols()));
  const Scalar slope = static_cast<Scalar>(rule.slope);
  if (slope != Scalar(0) && ramp_slope_ != slope) {
    ramp_ = Eigen::Array<Scalar, Eigen::Dynamic, 1>::LinSpaced(kKeyTile, 0, Scalar(kKeyTile - 1)) *
            slope;
    ramp_slope_ = slope;
  }
  auto tile = s_.topLeftCorner(rq, ck);
  tile.noalias() = q.middleRows(qa, rq) * k.middleRows(ka, ck).transpose();

  for (Eigen::Index r = 0; r < rq; ++r) {
    const Eigen::Index i = qa + r;  // global query index
    const Eigen::Index sr = i - row0_;
    // Columns [lo, hi) of this row that the rule keeps: masks are contiguous.
    Eigen::Index lo = 0, hi = ck;
    if (rule.causal) hi = std::min(hi, i - ka + 1);
    if (rule.band >= 0) {
      lo = std::max(lo, i - rule.band - ka);
      hi = std::min(hi, i + rule.band + 1 - ka);
    }
    Scalar* row = s_.row(r).data();
    if (lo >= hi) {
      std::fill(row, row + ck, Scalar(0));
      continue;
    }
    if (track_beta_) {
      Eigen::Map<Array> seg(row + lo, hi - lo);
      beta_ = std::max(beta_, seg.abs().maxCoeff() * scale);
    }
    Eigen::Map<Array> all(row, ck);
    if (slope != Scalar(0)) {
      // -slope |i - j| is linear on each side of the diagonal: with
      // ramp[c] = slope c and sb = slope (i - ka), it is ramp[c] - sb for
      // j <= i and sb - ramp[c] for j > i. Two vectorised passes.
      const Scalar sb = slope * static_cast<Scalar>(i - ka);
      const Eigen::Index mid = std::clamp<Eigen::Index>(i - ka + 1, lo, hi);
      all.segment(lo, mid - lo) =
          all.segment(lo, mid - lo) * scale + (ramp_.segment(lo, mid - lo) - sb);
      all.segment(mid, hi - mid) =
          all.segment(mid, hi - mid) * scale + (sb - ramp_.segment(mid, hi - mid));
    } else {
      all.segment(lo, hi - lo) *= scale;
    }
    Eigen::Map<Array> seg(row + lo, hi - lo);
    const Scalar m_new = std::max(m_[sr], seg.maxCoeff());
    const Scalar alpha = std::exp(m_[sr] - m_new);  // 0 when m_old = -inf
    // Weights below the smallest normal number are flushed to exactly 0:
    // denormal arithmetic is ~100x slower on x86, and such a weight is less
    // than 1e-37 (float) of the row's largest weight, 1: far below rounding.
    seg = (seg - m_new);
    flushed_exp<Scalar>(seg);
    std::fill(row, row + lo, Scalar(0));
    std::fill(row + hi, row + ck, Scalar(0));
    l_[sr] = l_[sr] * alpha + seg.sum();
    m_[sr] = m_new;
    if (alpha != Scalar(1)) o_.row(sr) *= alpha;
  }
  o_.middleRows(qa - row0_, rq).noalias() += tile * v.middleRows(ka, ck);
}

template <typename Scalar>
void OnlineSoftmax<Scalar>::accumulate_weighted(const ConstRowMatrixRef<Scalar>& q,
                                                const ConstRowMatrixRef<Scalar>& k,
                                                const ConstRowMatrixRef<Scalar>& v, Eigen::Index qa,
                                                Eigen::Index qb, Eigen::Index ka, Eigen::Index kb,
                                                const Scalar* mult, Eigen::Index mult_stride,
                                                const Eigen::Index* lo, const Eigen::Index* hi) {
  using Array = Eigen::Array<Scalar, Eigen::Dynamic, 1>;
  const Eigen::Index rq = qb - qa, ck = kb - ka;
  if (qa < row0_ || qb > row0_ + rows() || rq > kQueryTile || ck > kKeyTile || rq < 0 || ck < 0)
    throw std::logic_error("OnlineSoftmax::accumulate_weighted: tile outside the state");
  const Scalar scale = Scalar(1) / std::sqrt(static_cast<Scalar>(q.cols()));
  auto tile = s_.topLeftCorner(rq, ck);
  tile.noalias() = q.middleRows(qa, rq) * k.middleRows(ka, ck).transpose();
  for (Eigen::Index r = 0; r < rq; ++r) {
    const Eigen::Index sr = qa + r - row0_;
    const Eigen::Index a = std::max<Eigen::Index>(0, lo[r]), b = std::min(ck, hi[r]);
    Scalar* row = s_.row(r).data();
    if (a >= b) {
      std::fill(row, row + ck, Scalar(0));
      continue;
    }
    Eigen::Map<Array> seg(row + a, b - a);
    if (track_beta_) beta_ = std::max(beta_, seg.abs().maxCoeff() * scale);
    seg *= scale;
    const Scalar m_new = std::max(m_[sr], seg.maxCoeff());
    const Scalar alpha = std::exp(m_[sr] - m_new);  // 0 when m_old = -inf
    seg = (seg - m_new);
    flushed_exp<Scalar>(seg);
    seg *= Eigen::Map<const Array>(mult + r * mult_stride + a, b - a);
    std::fill(row, row + a, Scalar(0));
    std::fill(row + b, row + ck, Scalar(0));
    l_[sr] = l_[sr] * alpha + seg.sum();
    m_[sr] = m_new;
    if (alpha != Scalar(1)) o_.row(sr) *= alpha;
  }
  o_.middleRows(qa - row0_, rq).noalias() += tile * v.middleRows(ka, ck);
}

template <typename Scalar>
void OnlineSoftmax<Scalar>::write_output(Eigen::Ref<RowMatrix<Scalar>> out,
                                         Eigen::Index count) const {
  for (Eigen::Index r = 0; r < count; ++r) {
    if (l_[r] > Scalar(0))
      out.row(row0_ + r) = o_.row(r) / l_[r];
    else
      out.row(row0_ + r).setZero();
  }
}

template class OnlineSoftmax<float>;
template class OnlineSoftmax<double>;

}  // namespace poslsh::detail

// Dense matrices.
#include <vector>

namespace linalg {

/// Matrix is a dense row-major matrix of doubles.
class Matrix {
public:
    Matrix(int rows, int cols) : rows_(rows), cols_(cols), data_(rows * cols) {}

    double at(int r, int c) const { return data_[r * cols_ + c]; }

    Matrix multiply(const Matrix& other) const;

private:
    int rows_, cols_;
    std::vector<double> data_;
};

// multiply returns this times other.
Matrix Matrix::multiply(const Matrix& other) const {
    Matrix out(rows_, other.cols_);
    for (int i = 0; i < rows_; i++)
        for (int j = 0; j < other.cols_; j++)
            for (int k = 0; k < cols_; k++)
                out.data_[i * other.cols_ + j] += at(i, k) * other.at(k, j);
    return out;
}

template <typename T>
T dot(const std::vector<T>& a, const std::vector<T>& b) {
    T s{};
    for (size_t i = 0; i < a.size(); i++) s += a[i] * b[i];
    return s;
}

struct Point {
    double x, y;
};

}  // namespace linalg

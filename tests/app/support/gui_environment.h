// A QGuiApplication on the offscreen platform for the whole test program, created when the
// tests start (not when CTest lists them), so GoogleTest tests can paint text with QtGui
// alone, as attnscope_render does, without linking QtWidgets.
#pragma once

#include <memory>

#include <QGuiApplication>
#include <gtest/gtest.h>

namespace attnscope::testing {

class GuiEnvironment : public ::testing::Environment {
public:
    void SetUp() override {
        if (QCoreApplication::instance() == nullptr) {
            m_app = std::make_unique<QGuiApplication>(m_argc, m_argv);
        }
    }

    void TearDown() override { m_app.reset(); }

private:
    char m_name[16] = "attnscope-test";
    char m_platformFlag[10] = "-platform";
    char m_platform[10] = "offscreen";
    char* m_argv[4] = {m_name, m_platformFlag, m_platform, nullptr};
    int m_argc = 3;
    std::unique_ptr<QGuiApplication> m_app;
};

// One instance per program (an inline variable), registered before main runs the tests.
inline ::testing::Environment* const kGuiEnvironment =
    ::testing::AddGlobalTestEnvironment(new GuiEnvironment);

}  // namespace attnscope::testing

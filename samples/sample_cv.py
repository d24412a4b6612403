"""The CV sample: a one-page, two-column CV with a contact sidebar, and its expected fields."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

import pymupdf

from samples.pdf_kit import (
    GREY,
    NAVY,
    RULE,
    SIDEBAR,
    Canvas,
    Expected,
    SampleError,
    date_value,
    month_year,
    new_document,
)

__all__ = ["build_cv"]


def build_cv() -> tuple[pymupdf.Document, Expected]:
    ex = Expected()
    name = "Imogen Castellane"
    headline = "Data Engineering Lead · Cloud Platforms & Streaming"
    email = "hello@imogencastellane.dev"
    phone = "+44 20 7946 0958"
    location = "London, United Kingdom"
    linkedin = "https://linkedin.com/in/icastellane"
    github = "https://github.com/icastellane"
    website = "https://imogencastellane.dev"
    summary = (
        "Data engineer with 11 years of experience designing, building and operating cloud "
        "data platforms for logistics and insurance businesses. I lead small platform teams, "
        "own streaming and batch pipelines end to end, and care about data quality, cost "
        "control and clear documentation. Currently focused on real-time freight visibility "
        "and self-service analytics on AWS."
    )
    skills = [
        "Python",
        "SQL",
        "Apache Spark",
        "Apache Kafka",
        "Apache Airflow",
        "dbt",
        "AWS (S3, Glue, EMR, Redshift)",
        "Terraform",
        "Docker",
        "Kubernetes",
        "PostgreSQL",
        "Data modelling",
    ]
    languages = [
        ("English", "Native"),
        ("German", "Professional (C1)"),
        ("Spanish", "Intermediate (B1)"),
    ]
    positions: list[dict[str, Any]] = [
        {
            "title": "Lead Data Engineer",
            "employer": "Northwind Freight Analytics Ltd",
            "location": "London, UK",
            "start": date(2019, 3, 1),
            "end": None,
            "bullets": [
                "Lead a team of five engineers running the company's AWS data platform "
                "(S3, Glue, EMR, Redshift) used by more than 300 internal analysts.",
                "Replaced nightly batch loads with Kafka and Spark Structured Streaming, "
                "cutting shipment-tracking latency from six hours to under two minutes.",
                "Introduced dbt, data contracts and automated quality checks; data incidents "
                "fell by 60% year on year.",
            ],
        },
        {
            "title": "Data Engineer",
            "employer": "Calder & Finch Insurance",
            "location": "Edinburgh, UK",
            "start": date(2016, 1, 1),
            "end": date(2019, 2, 1),
            "bullets": [
                "Built Airflow pipelines loading policy and claims data from 14 source systems "
                "into a central PostgreSQL warehouse.",
                "Migrated legacy ETL jobs to Python, saving £180,000 a year in licence fees.",
            ],
        },
        {
            "title": "Software Developer",
            "employer": "Brightwater Retail Group",
            "location": "Manchester, UK",
            "start": date(2014, 9, 1),
            "end": date(2015, 12, 1),
            "bullets": [
                "Developed reporting tools in Python and SQL for store performance and stock "
                "forecasting; maintained the Django supplier portal used by 400 suppliers.",
            ],
        },
    ]
    education: list[dict[str, Any]] = [
        {
            "degree": "MSc",
            "field": "Data Science",
            "institution": "University of Edinburgh",
            "start": date(2013, 9, 1),
            "end": date(2014, 8, 1),
            "note": "Distinction. Dissertation on anomaly detection in sensor streams.",
        },
        {
            "degree": "BSc (Hons)",
            "field": "Mathematics",
            "institution": "University of Leeds",
            "start": date(2010, 9, 1),
            "end": date(2013, 6, 1),
            "note": "First-class honours.",
        },
    ]
    certifications = [
        ("AWS Certified Solutions Architect – Associate", "2021"),
        ("Google Cloud Professional Data Engineer", "2022"),
        ("Databricks Certified Data Engineer Professional", "2024"),
    ]
    work_authorisation = "British citizen, no sponsorship required"
    notice = "3 months"

    def span(start: date, end: date | None) -> str:
        return f"{month_year(start)} – {month_year(end) if end else 'Present'}"

    # Expected fields, in schema order.
    ex.add("full_name", name, name)
    ex.add("headline", headline, headline)
    ex.add("email", email, email)
    ex.add("phone", phone, phone)
    ex.add("location", location, location)
    ex.add("linkedin_url", linkedin, linkedin)
    ex.add("github_url", github, github)
    ex.add("website_url", website, website)
    ex.add("current_title", positions[0]["title"], positions[0]["title"])
    ex.add("current_employer", positions[0]["employer"], positions[0]["employer"])
    ex.add("years_of_experience", 11.0, "11 years of experience")
    ex.add("summary", summary, summary, multiline=True)
    ex.add("work_authorization", work_authorisation, work_authorisation)
    ex.add("availability", notice, f"Notice period: {notice}")
    for i, skill in enumerate(skills):
        ex.add(f"skills[{i}]", skill, skill)
    for i, (language, level) in enumerate(languages):
        ex.add(f"languages[{i}].language", language, language)
        ex.add(f"languages[{i}].proficiency", level, level)
    for i, (cert, _year) in enumerate(certifications):
        ex.add(f"certifications[{i}]", cert, cert)
    for i, edu in enumerate(education):
        p = f"education[{i}]"
        ex.add(f"{p}.institution", edu["institution"], edu["institution"])
        ex.add(f"{p}.degree", edu["degree"], edu["degree"])
        ex.add(f"{p}.field_of_study", edu["field"], edu["field"])
        start, end = month_year(edu["start"]), month_year(edu["end"])
        ex.add(f"{p}.start_date", date_value(edu["start"], start), start)
        ex.add(f"{p}.end_date", date_value(edu["end"], end), end)
    for i, pos in enumerate(positions):
        p = f"work_history[{i}]"
        ex.add(f"{p}.title", pos["title"], pos["title"])
        ex.add(f"{p}.employer", pos["employer"], pos["employer"])
        ex.add(f"{p}.location", pos["location"], pos["location"])
        start = month_year(pos["start"])
        ex.add(f"{p}.start_date", date_value(pos["start"], start), start)
        if pos["end"] is not None:
            end = month_year(pos["end"])
            ex.add(f"{p}.end_date", date_value(pos["end"], end), end)
            ex.add(f"{p}.is_current", False, span(pos["start"], pos["end"]))
        else:
            ex.add(f"{p}.is_current", True, "Present")
    keep = ex.keep()

    # Layout.
    doc = new_document(f"{name} – CV", "Curriculum vitae (fictional sample)")
    w, h = pymupdf.paper_size("a4")
    cv = Canvas(doc, w, h)
    cv.new_page()
    side_w = 196.0
    cv.box(pymupdf.Rect(0, 0, side_w, h), SIDEBAR)

    # Sidebar.
    sx, sw = 26.0, side_w - 2 * 26.0
    y = 86.0

    def side_heading(y: float, title: str) -> float:
        cv.text(sx, y, title, "B", 9.5, NAVY)
        cv.rule(sx, y + 5, sx + sw, NAVY, 0.8)
        return y + 21

    y = side_heading(y, "CONTACT")
    for line in (email, phone, location):
        cv.text(sx, y, line, "R", 8.8)
        y += 14
    y += 14
    y = side_heading(y, "LINKS")
    for label, url in (("LinkedIn", linkedin), ("GitHub", github), ("Website", website)):
        cv.text(sx, y, label, "B", 7.6, GREY)
        y += 11
        cv.text(sx, y, url, "R", 8.3)
        y += 16
    y += 8
    y = side_heading(y, "SKILLS")
    for skill in skills:
        cv.text(sx, y, "•", "R", 8.8, NAVY)
        cv.text(sx + 9, y, skill, "R", 8.8)
        y += 13.5
    y += 14
    y = side_heading(y, "LANGUAGES")
    for language, level in languages:
        cv.text(sx, y, language, "B", 8.8)
        y += 12
        cv.text(sx, y, level, "R", 8.8, GREY)
        y += 16
    if y > h - 40:
        raise SampleError("CV sidebar overflows the page")

    # Main column.
    mx = side_w + 30
    mw = w - mx - 36
    cv.text(mx, 78, name, "B", 27, NAVY)
    cv.text(mx, 101, headline, "R", 12, GREY)
    cv.rule(mx, 114, mx + mw, NAVY, 1.2)
    y = 140.0

    def heading(y: float, title: str) -> float:
        cv.text(mx, y, title, "B", 10.5, NAVY)
        cv.rule(mx, y + 5, mx + mw, RULE, 0.6)
        return y + 20

    def bullets(y: float, items: Sequence[str], size: float = 9.0) -> float:
        for item in items:
            cv.text(mx + 2, y, "•", "R", size, NAVY)
            y = cv.paragraph(mx + 12, y, mw - 12, item, "R", size, 12.2, keep=keep)
        return y

    y = heading(y, "PROFILE")
    y = cv.paragraph(mx, y, mw, summary, "R", 9.4, 13.2, keep=keep) + 10
    y = heading(y, "EXPERIENCE")
    for pos in positions:
        cv.text(mx, y, pos["title"], "B", 10.5)
        y += 13.5
        cv.text(mx, y, pos["employer"], "I", 9.2)
        x_loc = mx + cv.length(pos["employer"], "I", 9.2)
        cv.text(x_loc, y, f"  ·  {pos['location']}", "R", 9.2, GREY)
        cv.text(mx + mw, y, span(pos["start"], pos["end"]), "R", 9.2, GREY, align="right")
        y += 14
        y = bullets(y, pos["bullets"]) + 8
    y += 2
    y = heading(y, "EDUCATION")
    for edu in education:
        cv.text(mx, y, f"{edu['degree']} {edu['field']}", "B", 10.5)
        y += 13.5
        cv.text(mx, y, edu["institution"], "I", 9.2)
        dates = f"{month_year(edu['start'])} – {month_year(edu['end'])}"
        cv.text(mx + mw, y, dates, "R", 9.2, GREY, align="right")
        y += 13
        cv.text(mx, y, edu["note"], "R", 9.0)
        y += 20
    y = heading(y, "CERTIFICATIONS")
    for cert, year in certifications:
        cv.text(mx + 2, y, "•", "R", 9.0, NAVY)
        cv.text(mx + 12, y, cert, "R", 9.0)
        cv.text(mx + mw, y, year, "R", 9.0, GREY, align="right")
        y += 13
    y += 12
    y = heading(y, "ADDITIONAL INFORMATION")
    cv.text(mx, y, f"Work authorisation: {work_authorisation}", "R", 9.0)
    y += 13
    cv.text(mx, y, f"Notice period: {notice}", "R", 9.0)
    y += 13
    if y > h - 36:
        raise SampleError(f"CV main column overflows the page (y={y:.0f})")
    return doc, ex

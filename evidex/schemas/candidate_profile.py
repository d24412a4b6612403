"""``candidate_profile``: what an HR screen reads off a CV."""

from __future__ import annotations

from .field import FieldExtraction, FieldGroup, field
from .rules import OrderRule
from .values import DateValue

__all__ = ["RULES", "CandidateProfile", "Education", "Language", "Position"]


class Position(FieldGroup):
    """One job in the work history."""

    title: FieldExtraction[str] = field("Job title as written.")
    employer: FieldExtraction[str] = field("Employer (company or organisation) name.")
    location: FieldExtraction[str] = field("Where the job was based.")
    start_date: FieldExtraction[DateValue] = field(
        "Start date; a month-only date uses the 1st (2019-03 -> 2019-03-01).", "date"
    )
    end_date: FieldExtraction[DateValue] = field(
        "End date; not found when the position is current ('present').", "date"
    )
    is_current: FieldExtraction[bool] = field("true when the position is ongoing ('present').")


class Education(FieldGroup):
    """One degree or course of study."""

    institution: FieldExtraction[str] = field("University, school or institution.")
    degree: FieldExtraction[str] = field("Degree as written (BSc, Master of Science, PhD...).")
    field_of_study: FieldExtraction[str] = field("Subject or major.")
    start_date: FieldExtraction[DateValue] = field("Start date.", "date")
    end_date: FieldExtraction[DateValue] = field("Graduation or end date.", "date")


class Language(FieldGroup):
    """A spoken language."""

    language: FieldExtraction[str] = field("Language name.")
    proficiency: FieldExtraction[str] = field("Level as written (native, fluent, B2...).")


class CandidateProfile(FieldGroup):
    """A candidate's CV, read for screening."""

    full_name: FieldExtraction[str] = field("The candidate's full name.")
    headline: FieldExtraction[str] = field("Professional headline or target role under the name.")
    email: FieldExtraction[str] = field("Email address.", "email")
    phone: FieldExtraction[str] = field("Phone number as written.", "phone")
    location: FieldExtraction[str] = field("Where the candidate lives (city, country).")
    linkedin_url: FieldExtraction[str] = field("LinkedIn profile URL.", "url")
    github_url: FieldExtraction[str] = field("GitHub profile URL.", "url")
    website_url: FieldExtraction[str] = field("Personal website or portfolio URL.", "url")
    current_title: FieldExtraction[str] = field("Title of the current (most recent) position.")
    current_employer: FieldExtraction[str] = field("Employer of the current position.")
    years_of_experience: FieldExtraction[float] = field(
        "Total years of professional experience when the CV states it ('8 years of experience').",
        "years",
    )
    summary: FieldExtraction[str] = field("The profile or summary paragraph.", "text")
    work_authorization: FieldExtraction[str] = field("Right-to-work or visa status when stated.")
    availability: FieldExtraction[str] = field("Notice period or availability when stated.")
    skills: list[FieldExtraction[str]] = field("Each skill, one item per skill.")
    languages: list[Language] = field("Spoken languages with proficiency.")
    certifications: list[FieldExtraction[str]] = field("Certifications and licences.")
    education: list[Education] = field("Degrees, most recent first.")
    work_history: list[Position] = field("Positions, most recent first.")


RULES = (
    OrderRule(earlier="work_history[].start_date", later="work_history[].end_date"),
    OrderRule(earlier="education[].start_date", later="education[].end_date"),
)
